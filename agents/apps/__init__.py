"""Applications above the library and the agents: people playing (the terminal, the web app) and the
``sobek-env`` command."""
