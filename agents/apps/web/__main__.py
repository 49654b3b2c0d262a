"""``python -m agents.apps.web``: the web app (see :mod:`agents.apps.web`)."""

from agents.apps.web import main

main()
