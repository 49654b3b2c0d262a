"""Train a player of any registered game with MaskablePPO (or RLlib): ``python train.py --help``.

The code is in :mod:`agents.training.sb3`.
"""

from agents.training.sb3 import main

if __name__ == "__main__":
    main()
