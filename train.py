"""Train a player of any registered game with MaskablePPO (or RLlib): ``python train.py --help``.

The code is in :mod:`agents.training`.
"""

from agents.training import main

if __name__ == "__main__":
    main()
