"""What the Ray backends do without Ray: clear refusals that change nothing. (Ray's own tests, which run
tournaments and training on it, are in tests_ray/: make test-ray.)"""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path

import pytest

from agents.tournaments.cluster import RayUnavailable, check_reachable, require_ray, split_address
from agents.tournaments.evaluation import main as evaluate
from agents.tournaments.tournament import play_tournament
from agents.training.sb3 import main as train


@pytest.fixture
def without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if Ray were not installed (whether it is or not): importing it fails."""
    for name in [name for name in sys.modules if name == "ray" or name.startswith("ray.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)


def free_port() -> int:
    """A local port nothing listens on (just released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(("address", "where"), [
    ("192.168.1.10:6379", ("192.168.1.10", 6379)), ("ray://head:10001", ("head", 10001)),
    ("[::1]:6379", ("::1", 6379)), ("auto", None),
])
def test_a_cluster_address_is_read_as_host_and_port(address: str, where: tuple | None) -> None:
    assert split_address(address) == where


@pytest.mark.parametrize("address", ["head", "head:", ":6379", "head:port", "head:70000", "head:0", ""])
def test_a_malformed_address_is_refused_showing_the_forms(address: str) -> None:
    with pytest.raises(RayUnavailable, match=rf"--address '{address}' is not a Ray cluster address: give HOST:PORT"):
        split_address(address)


def test_an_address_nothing_answers_is_refused_at_once() -> None:
    port = free_port()
    with pytest.raises(RayUnavailable, match=rf"no Ray cluster answers at --address 127.0.0.1:{port} \(Connection "
                                             r"refused\); start one there with ray start --head"):
        check_reachable(f"127.0.0.1:{port}")


def test_a_missing_ray_is_named_with_the_install_command(without_ray: None) -> None:
    with pytest.raises(RayUnavailable, match=r'^--backend ray needs Ray, which is not installed; install the extra: '
                                             r'pip install "sobek-env\[ray\]" -c constraints.txt$'):
        require_ray()
    with pytest.raises(RayUnavailable, match="needs Ray"):
        play_tournament(["random", "random"], 2, backend="ray")


def test_a_tournament_refuses_an_unknown_backend_or_an_address_without_ray() -> None:
    with pytest.raises(ValueError, match="backend must be one of local, ray, got 'cloud'"):
        play_tournament(["random", "random"], 2, backend="cloud")
    with pytest.raises(ValueError, match="an address is for backend='ray'"):
        play_tournament(["random", "random"], 2, address="127.0.0.1:6379")


@pytest.mark.parametrize(("args", "message"), [
    (["--backend", "ray"], r'--backend ray needs Ray, which is not installed; install the extra: pip install '
                           r'"sobek-env\[ray\]"'),
    (["--address", "127.0.0.1:6379"], "--address is the address of a Ray cluster: it goes with --backend ray"),
    (["--backend", "ray", "--agents", "human", "random"], "human plays at this terminal, and --backend ray plays "
                                                          "the games on Ray workers; use --backend local"),
])
def test_evaluate_refuses_what_ray_cannot_do_changing_nothing(without_ray: None, tmp_path: Path, args: list[str],
                                                               message: str, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "out"
    agents = [] if "--agents" in args else ["--agents", "random", "random"]
    with pytest.raises(SystemExit) as exit_info:
        evaluate(["--players", "2", "--games", "2", *agents, *args, "--out", str(out)])
    assert exit_info.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("sobek-env evaluate: error: ") and re.search(message, last), last
    assert not out.exists()


def test_training_with_rllib_without_ray_is_refused_changing_nothing(without_ray: None, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        train(["--backend", "rllib", "--players", "2", "--out", str(out)])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip() == (
        'sobek-env train --backend rllib: error: sobek-env train --backend rllib needs Ray, which is not installed; '
        'install the extra: pip install "sobek-env[ray]" -c constraints.txt')
    assert not out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "5"], "argument --players: Sobek is for 2 to 4 players, got 5"),
    (["--players", "3", "--eval-games", "10"], "--eval-games 10 is not a multiple of --players 3"),
    (["--players", "2", "--snapshots", "3"], "--snapshots and --snapshot-every go with --self-play league"),
    (["--players", "2", "--minibatch-size", "900", "--batch-size", "800"], "--minibatch-size 900 exceeds"),
    (["--players", "2", "--address", "auto", "--cpus", "2"], "--cpus sizes a local Ray"),
    (["--players", "2", "--backend", "tensorflow"], "argument --backend: invalid choice: 'tensorflow'"),
])
def test_training_with_rllib_refuses_a_bad_configuration_before_looking_for_ray(
        without_ray: None, tmp_path: Path, args: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    backend = [] if "--backend" in args else ["--backend", "rllib"]
    with pytest.raises(SystemExit) as exit_info:
        train([*backend, *args, "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
