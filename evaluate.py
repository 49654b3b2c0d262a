"""Play tournaments and the corruption study: ``python evaluate.py --help``; the code is in
:mod:`agents.tournaments.evaluation`."""

from agents.tournaments.evaluation import main

if __name__ == "__main__":
    main()
