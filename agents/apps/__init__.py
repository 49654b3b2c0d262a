"""Applications above the library: the terminal play command, the web app and the ``sobek-env`` command."""
