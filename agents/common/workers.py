"""Worker processes that never outlive their parent, and a clear error when one dies.

A worker forked by the trainer (or spawned by a tournament) blocks on its pipe to the parent.
If the parent is killed, that pipe may never close: forked siblings hold copies of each other's
ends. So each worker calls :func:`die_with_parent` first: on Linux the kernel kills it when its
parent ends (``PR_SET_PDEATHSIG``), and on every system a daemon thread ends it once its parent
is gone (its parent process id changes). Workers also ignore Ctrl-C, which the terminal sends
to every process of the run: the parent saves what it has and closes its workers itself.

A worker that dies raises :class:`WorkerDied` in its parent (see ``agents.training.sb3.WorkerVecEnv``
and :func:`agents.tournaments.tournament.play_tournament`). This module imports nothing heavy: tournament
workers import it.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import resource
import signal
import sys
import threading
import time
from collections.abc import Iterator

PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_CHECK_SECONDS = 0.5


def cpu_seconds() -> float:
    """CPU seconds of this process (all its threads), of its children that ended and, where ``/proc`` tells
    (Linux), of those still running (a trainer's environment workers)."""
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = time.process_time() + ended.ru_utime + ended.ru_stime
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for child in multiprocessing.active_children():
        try:
            with open(f"/proc/{child.pid}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError, TypeError):
            continue  # not Linux, or it just ended (and so counts among the ended)
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime and stime, the 14th and 15th fields
    return total


class WorkerDied(RuntimeError):
    """A worker process ended while its parent still needed it."""


class Interrupted(KeyboardInterrupt):
    """The run was stopped by the signal ``signum`` (Ctrl-C's SIGINT, or SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum: int, frame: object) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM (what ``timeout``, ``docker stop`` and schedulers send) raises
    :class:`Interrupted`, as Ctrl-C raises KeyboardInterrupt: the run saves what it has and says so."""
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM wait: the first to arrive is raised again when it ends, to the
    handler from before. For bookkeeping that must happen whole, such as writing a game and counting it, so
    what a stopped run reports is what it kept. (Masking the signals would not do: the kernel gives a
    signal sent to the process to any thread not masking it, tqdm's for one.) Only the main thread can
    set handlers; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, lambda signum, frame: arrived.append(signum)) for signum in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if arrived:
            signal.raise_signal(arrived[0])


def stopped_by(exc: KeyboardInterrupt) -> tuple[str, int]:
    """How to say what stopped the run, and its exit status (128 + the signal: 130 for Ctrl-C, 143 for SIGTERM)."""
    signum = getattr(exc, "signum", signal.SIGINT)
    return ("interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"), 128 + signum


def die_with_parent(parent: int) -> None:
    """In a worker process: end it as soon as the process ``parent`` ends, however it ends, and leave
    Ctrl-C to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent ended before the kernel was told
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


def how_it_ended(exitcode: int | None) -> str:
    """A process's end in words: ``was killed by SIGKILL``, ``exited with status 1``."""
    if exitcode is None:
        return "stopped answering"
    if exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"exited with status {exitcode}"
