"""Training: MaskablePPO (stable-baselines3) and RLlib trainers, rewards, the opponents' pool, run
directories, imitation and the conversion of old model files."""
