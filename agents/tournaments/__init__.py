"""Tournaments: games between agents with seats rotating, their records and statistics, and their local
and Ray backends (``evaluate.py``)."""
