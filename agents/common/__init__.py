"""What every command shares: safe files and locks, worker processes and signals, argument parsers."""
