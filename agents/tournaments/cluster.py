"""Ray, for tournaments and RLlib training beyond one process: a local Ray by default, a cluster by address.

Ray is an optional extra (``pip install "sobek-env[ray]"``), imported only here and in the RLlib
modules, and only when asked for: the rest of the project runs without it.

:func:`ray_session` starts a local Ray (``num_cpus`` of this machine) or connects to the cluster at an
address (``HOST:PORT`` as ``ray start --head`` prints it, ``ray://HOST:PORT`` for Ray Client, or
``auto`` for the cluster started on this machine). An address that nothing answers is refused at
once (Ray itself would retry for many minutes), and a missing Ray is named with the command that
installs it: both as :class:`RayUnavailable`.

:func:`play_on_ray` plays a tournament's games as Ray tasks, one game per task, on every CPU of the
cluster, yielding each record as its game ends. Each task plays with the same code as a local
worker (:class:`agents.tournaments.tournament.GamePlayer`, kept per Ray worker process so models load once),
so the same seeds give the same games. Model files named by ``ppo:`` and ``rllib:`` specs are read
once by the driver and shipped through Ray's object store: a cluster's nodes need the project
installed, not the files. A worker that dies (killed, out of memory, its node lost) is retried by
Ray, then ends the tournament with :class:`~agents.common.workers.WorkerDied`; the tasks of an interrupted
tournament end with the driver's Ray session.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from agents.common.files import write_atomic
from agents.common.workers import WorkerDied
from agents.players.registry import MODEL_AGENTS, parse_spec

RAY_INSTALL = 'pip install "sobek-env[ray]" -c constraints.txt'
CONNECT_SECONDS = 5.0  # to reach a cluster's address before Ray is asked to (it would retry for minutes)
TASKS_PER_CPU = 2  # queued at a time: enough to keep every CPU busy, few to lose on an interruption
TASK_RETRIES = 2  # a task whose worker died is played again (the same game: its seed fixes it)


class RayUnavailable(RuntimeError):
    """Ray is not installed, or no Ray cluster answers at the address given."""


def require_ray(what: str = "--backend ray") -> ModuleType:
    """The ``ray`` module; RayUnavailable naming the install command if it is not installed."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable(f"{what} needs Ray, which is not installed; install the extra: {RAY_INSTALL}") from None
    return ray


def split_address(address: str) -> tuple[str, int] | None:
    """The host and port of a cluster address (``HOST:PORT`` or ``ray://HOST:PORT``), None for ``auto``;
    RayUnavailable for anything else."""
    if address == "auto":
        return None
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RayUnavailable(f"--address {address!r} is not a Ray cluster address: give HOST:PORT as ray start --head "
                             "prints it (e.g. 192.168.1.10:6379), ray://HOST:10001 for Ray Client, or auto for "
                             "the cluster started on this machine")
    return host.strip("[]"), int(port)


def check_reachable(address: str) -> None:
    """RayUnavailable unless something accepts connections at ``address`` within CONNECT_SECONDS."""
    where = split_address(address)
    if where is None:
        return
    try:
        with socket.create_connection(where, timeout=CONNECT_SECONDS):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RayUnavailable(f"no Ray cluster answers at --address {address} ({reason}); start one there with "
                             "ray start --head, or give the address it printed") from None


@contextlib.contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[ModuleType]:
    """Within the block, Ray is connected: to the cluster at ``address``, or to a local Ray started with
    ``num_cpus`` CPUs (shut down at the end). A Ray this process already connected is used as it is (an address
    is still checked first)."""
    ray = require_ray()
    if address is not None:
        check_reachable(address)
    if ray.is_initialized():
        yield ray
        return
    handler = signal.getsignal(signal.SIGTERM)  # ray.init replaces it with an exit: keep the caller's
    try:
        # Ray's workers hash strings as the driver does, so that RLlib's samplers on them are reproducible too
        hash_seed = os.environ.get("PYTHONHASHSEED")
        hashing = None if hash_seed is None else {"env_vars": {"PYTHONHASHSEED": hash_seed}}
        ray.init(address=address or "local", num_cpus=None if address else num_cpus, include_dashboard=False,
                 logging_level=logging.ERROR, log_to_driver=False, runtime_env=hashing)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, or a bare Exception (a node too slow to start)
        raise RayUnavailable(_connection_failure(address, exc)) from None
    finally:
        signal.signal(signal.SIGTERM, handler)
    try:
        yield ray
    finally:
        ray.shutdown()


def _connection_failure(address: str | None, exc: BaseException) -> str:
    """Why Ray could not start or connect, from the innermost cause of ``exc`` (Ray wraps it, sometimes as text)."""
    cause, told = exc, str(exc)
    while cause.__cause__ is not None:
        cause = cause.__cause__
        told += str(cause)
    if address and ("AuthenticationError" in told or "InvalidAuthToken" in told):
        return (f"the Ray cluster at --address {address} refused this driver's authentication token; Ray's clusters "
                "require one by default: run with RAY_AUTH_MODE=token in the environment and the head's token in "
                "~/.ray/auth_token (or RAY_AUTH_TOKEN)")
    first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    where = f"the Ray cluster at --address {address}" if address else "a local Ray"
    return f"cannot start or reach {where}: {first}"


# ---------------------------------------------------------------- tournaments


def shipped_models(specs: Sequence[str], ray: ModuleType) -> dict[int, tuple[str, str, Any]]:
    """For each spec position naming a model file: its digest, its suffix and the file's bytes put in
    Ray's object store."""
    shipped = {}
    for position, spec in enumerate(specs):
        name, args = parse_spec(spec)
        if name in MODEL_AGENTS:
            data = Path(args[0].strip()).read_bytes()
            shipped[position] = (hashlib.sha256(data).hexdigest(), Path(args[0].strip()).suffix, ray.put(data))
    return shipped


# per Ray worker process: a GamePlayer per game (which keeps its agents), and the local copies of shipped
# model files by digest, in a folder of the process's own (removed when it ends)
_PLAYERS: dict[str, Any] = {}
_MODELS: dict[str, Path] = {}
_MODEL_FOLDER: list[Path] = []


def _local_model(digest: str, suffix: str, ref: Any) -> Path:
    """The shipped model file ``digest`` as a file of this worker process (fetched once)."""
    if digest not in _MODELS:
        import ray

        if not _MODEL_FOLDER:
            _MODEL_FOLDER.append(Path(tempfile.mkdtemp(prefix="sobek-env-models-")))
            atexit.register(shutil.rmtree, _MODEL_FOLDER[0], True)
        path = _MODEL_FOLDER[0] / f"{digest}{suffix}"
        write_atomic(path, ray.get(ref))
        _MODELS[digest] = path
    return _MODELS[digest]


def _play_task(player: Callable[[str], Any], game: str, task: tuple,
               shipped: dict[int, tuple[str, str, Any]]) -> Any:
    """One game on a Ray worker, played by the worker's one ``player(game)`` (the tournament's
    :class:`~agents.tournaments.tournament.GamePlayer`), model specs pointing to the worker's copies of the
    shipped files."""
    specs = list(task[0])
    for position, (digest, suffix, ref) in shipped.items():
        name, args = parse_spec(specs[position])
        specs[position] = f"{name}:{','.join([str(_local_model(digest, suffix, ref)), *args[1:]])}"
    if game not in _PLAYERS:
        _PLAYERS[game] = player(game)
    return _PLAYERS[game].play(tuple(specs), *task[1:])


def play_on_ray(tasks: Sequence[tuple], game: str, player: Callable[[str], Any]) -> Iterator[Any]:
    """The games of ``tasks`` (as :func:`agents.tournaments.tournament.play_tournament` makes them)
    played as Ray tasks on the connected Ray by ``player(game).play(*task)`` (the tournament passes its
    GamePlayer in, so that this backend does not import the tournament), in the order they end. WorkerDied if a
    worker dies beyond the retries."""
    import ray
    from ray.exceptions import RayError, RayTaskError

    if not tasks:
        return
    shipped = shipped_models(tasks[0][0], ray)
    remote = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(_play_task)
    queued = max(1, int(ray.cluster_resources().get("CPU", 1)) * TASKS_PER_CPU)
    waiting = iter(tasks)
    running = [remote.remote(player, game, task, shipped) for task in _take(waiting, queued)]
    # tasks still running when the tournament stops early end with the driver's Ray session; cancelling them
    # here raced with their replies and could crash the driver inside Ray (2.60) as it shut down
    while running:
        ended, running = ray.wait(running, num_returns=1)
        try:
            record = ray.get(ended[0])
        except RayTaskError:
            raise  # the game's own error (an agent's), as the local backend raises it
        except RayError as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise WorkerDied(f"a Ray worker of the tournament died while playing ({type(exc).__name__}: "
                             f"{first})") from None
        running += [remote.remote(player, game, task, shipped) for task in _take(waiting, 1)]
        yield record


def _take(iterator: Iterator[tuple], count: int) -> list[tuple]:
    return [task for _, task in zip(range(count), iterator)]
