"""Train a player of any registered game with MaskablePPO (or RLlib): the same as ``sobek-env train``
(``sobek-env train --help``); the code is in :mod:`agents.training.sb3`.
"""

from agents.training.sb3 import main

if __name__ == "__main__":
    main()
