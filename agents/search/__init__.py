"""Search: information-set Monte Carlo tree search over determinizations (``ismcts``)."""
