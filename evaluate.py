"""Play tournaments and the corruption study: the same as ``sobek-env evaluate`` (``sobek-env evaluate
--help``); the code is in :mod:`agents.tournaments.evaluation`."""

from agents.tournaments.evaluation import main

if __name__ == "__main__":
    main()
