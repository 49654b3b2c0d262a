"""Players: the agent protocol, the registry that builds an agent from a spec string, and the generic
agents (random, human, learned models and their model files)."""
