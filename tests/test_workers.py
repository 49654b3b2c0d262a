"""agents.common.workers.cpu_seconds: the CPU of this process and of its children, running or ended."""

from __future__ import annotations

import multiprocessing
import time

from agents.common.workers import cpu_seconds


def _burn_then_wait(seconds: float, done: multiprocessing.Event, release: multiprocessing.Event) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    done.set()
    release.wait(30)


def test_a_running_child_s_cpu_counts_and_still_counts_once_it_ended() -> None:
    context = multiprocessing.get_context("fork")
    done, release = context.Event(), context.Event()
    before = cpu_seconds()
    child = context.Process(target=_burn_then_wait, args=(0.6, done, release))
    child.start()
    try:
        assert done.wait(30)
        running = cpu_seconds() - before
    finally:
        release.set()
        child.join(30)
    ended = cpu_seconds() - before
    assert 0.5 < running < 5  # the child's burnt 0.6 s (and this process's own waiting, nearly nothing)
    assert running - 0.1 < ended < running + 1  # counted once, from /proc while it ran, then as an ended child
