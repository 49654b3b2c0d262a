"""Kleopatra as a PettingZoo-style versioned module:
``env()``, ``raw_env()`` and ``parallel_env()`` with the game fixed.

The suffix changes whenever the game's rules, actions or observation change meaning.
"""

from .parallel import versioned

JOINED = 2  # the order the games joined the project: sobek_env.GAMES lists them so

env, raw_env, parallel_env = versioned("kleopatra")

__all__ = ["env", "parallel_env", "raw_env"]
