"""Files of runs and models, read and written safely.

- :func:`read_json` reads a JSON document of bounded size and nesting: a file from anyone
  gets a clear ValueError, never a ``RecursionError`` or an unbounded read.
- :func:`write_atomic` writes a file aside (a unique temporary name beside it), then renames
  it over the target: a crash or a kill leaves the old file or the new one, never a mix.
- :class:`DirectoryLock` holds an advisory lock on a directory for a run, so that a second
  run on the same directory is refused at once instead of overwriting the first one's files.
  The lock is the kernel's (``flock``): it ends with the process, even a killed one.
"""

from __future__ import annotations

import argparse
import fcntl
import io
import json
import os
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

MAX_JSON_BYTES = 16 * 1024 * 1024
MAX_JSON_DEPTH = 32
LOCK_NAME = ".lock"


def depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed JSON value (a scalar is 0); iterative."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level + 1)
            stack.extend((child, level + 1) for child in item)
    return deepest


def parse_json(text: str | bytes, what: str, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value in ``text``; ValueError naming ``what`` if it is too large, too deep or not JSON."""
    if len(text) > max_bytes:
        raise ValueError(f"{what} holds {len(text):,} bytes, more than the {max_bytes:,} allowed")
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"{what} nests deeper than {max_depth} levels") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{what} is not JSON ({exc})") from None
    if depth(value) > max_depth:
        raise ValueError(f"{what} nests deeper than {max_depth} levels")
    return value


def read_json(path: str | Path, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON document in the file ``path``, read to at most ``max_bytes`` (see :func:`parse_json`).

    OSError if it cannot be read; ValueError naming the file if it is too large, too deep or not JSON.
    """
    with open(path, "rb") as file:
        text = file.read(max_bytes + 1)
    return parse_json(text, repr(str(path)), max_bytes, max_depth)


def write_atomic(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through a unique temporary file beside it, renamed over ``path``; an OSError
    (a full disk, no such directory) names ``path``, not the temporary file, which is removed."""
    path = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    try:
        os.fchmod(handle, 0o644)  # mkstemp's 0o600 would hide results from the user's group
        with os.fdopen(handle, "wb") as file:
            file.write(data.encode() if isinstance(data, str) else data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
        raise


def write_figure(fig: Any, path: str | Path, dpi: int) -> None:
    """Lay out the matplotlib figure ``fig``, close it and write it to ``path`` as a PNG (:func:`write_atomic`)."""
    import matplotlib.pyplot as plt  # only where a figure was drawn: matplotlib is needed for plots alone

    fig.tight_layout()
    image = io.BytesIO()
    try:
        fig.savefig(image, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    write_atomic(path, image.getvalue())


class DirectoryInUse(RuntimeError):
    """Another process holds the lock of the directory."""


class DirectoryLock:
    """An exclusive lock on ``directory`` (created if needed), held from :meth:`acquire` to :meth:`release`.

    :meth:`acquire` raises :class:`DirectoryInUse` at once if another process holds it, and OSError
    if the directory cannot be created or written. The lock file records the holder's process id,
    for the message.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> DirectoryLock:
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise DirectoryInUse(f"{str(self.directory)!r} is in use by another run (process {holder}); "
                                 "wait for it to end or choose another directory") from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the file ends the lock; the empty lock file may stay
            self._fd = None

    def __enter__(self) -> DirectoryLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.release()


def lock_for_command(parser: argparse.ArgumentParser, out: Path, what: str, option: str = "--out") -> DirectoryLock:
    """The lock of a command's ``--out`` (or other output directory ``option``), created if needed, held until
    the process ends; a run already there, or a directory that cannot be written, stops the command with
    ``parser.error``."""
    try:
        return DirectoryLock(out).acquire()
    except DirectoryInUse as exc:
        parser.error(f"{option} {exc}")
    except OSError as exc:
        parser.error(f"cannot write {what} to {option} {str(out)!r} ({exc.strerror or exc}); choose another directory")
