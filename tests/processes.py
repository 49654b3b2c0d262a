"""Finding a run's processes in /proc, for the tests that kill them."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path


def _stats() -> list[tuple[int, list[str]]]:
    """(pid, the fields of /proc/pid/stat after the command's name) of every live process."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if fields[0] != "Z":  # a zombie has ended; it only waits to be reaped
                found.append((int(entry.name), fields))
    return found


def group(pgid: int) -> list[int]:
    """The live processes of the process group ``pgid``."""
    return [pid for pid, fields in _stats() if int(fields[2]) == pgid]


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    return [child for child, fields in _stats() if int(fields[1]) == pid]


def pool_workers(pid: int) -> list[int]:
    """The worker processes ``pid`` spawned with multiprocessing (a local tournament's pool)."""
    return [child for child in children(pid) if "spawn_main" in command_line(child)]


def command_line(pid: int) -> str:
    """The command line of ``pid`` ('' if it has ended)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_for(condition: Callable[[], object], seconds: float, what: str) -> None:
    """Poll ``condition`` until it holds; AssertionError naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
