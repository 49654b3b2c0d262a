"""The browser's tests (make test-web; outside the suite's testpaths, so make test collects none of them): the
web app served by uvicorn on a free port of 127.0.0.1 in this process, and Debian's Chromium driven by
Playwright (``make test-web`` installs both)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import uvicorn

from agents.apps.web.app import Settings, create_app

if TYPE_CHECKING:  # Playwright is imported by the fixtures: pytest 7 loads this file at the start of any run
    # from the project's root (conftests of test* folders), where the suite's venv has no Playwright
    from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = ("chromium", "chromium-browser")


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Iterator[str]:
    """The app's address; its replay folder is the session's temporary folder ``replays``."""
    replays = tmp_path_factory.mktemp("replays")
    app = create_app(Settings(models=ROOT / "models", replays=replays))
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the web app did not start within 30 seconds"
        time.sleep(0.05)
    server.app_state = app.state  # the tests look at the games the pages play
    server.replays = replays
    yield server
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = next((shutil.which(name) for name in CHROMIUM if shutil.which(name)), None)
    assert executable, "no Chromium here: make test-web installs Debian's package (apt-get install chromium)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1300, "height": 950})
    page = context.new_page()
    yield page
    context.close()


def address(server) -> str:
    return f"http://127.0.0.1:{server.config.port}"
