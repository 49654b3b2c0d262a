"""Tournaments on Ray (evaluate.py --backend ray): the same games as the local backend for both games and every
kind of agent, games kept as they end, a dead Ray worker survived, an unreachable address refused, a cluster
reached by its address."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import command_line, session
from processes import wait_for
from reports import results

import sobek_env
from agents.players.rllib_policy import MaskedNet, save_policy
from agents.tournaments.evaluation import main as evaluate
from agents.tournaments.tournament import play_tournament

ROOT = Path(__file__).resolve().parent.parent
PPO_MODEL = ROOT / "models" / "ppo-2p.zip"


def random_policy(path: Path, game: str, players: int) -> Path:
    """An RLlib policy file of an untrained network for ``game``."""
    info = sobek_env.load_game(game)
    torch.manual_seed(0)
    size = info.observation_size(players)
    net = MaskedNet(size, info.num_actions, [16])
    save_policy(path, {"game": game, "num_players": players, "observation_mode": "original", "reward": "win",
                       "timesteps": 0, "observation_size": size, "action_count": info.num_actions,
                       "network": {"hidden": [16], "activation": "ReLU"}}, net.state_dict())
    return path


def game_lines(out: Path) -> int:
    path = out / "games.jsonl"
    return path.read_bytes().count(b"\n") - 1 if path.exists() else 0




def start(args: list[str], **env: str) -> subprocess.Popen:
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, **env})


@pytest.mark.parametrize(("game", "specs", "games"), [
    ("sobek", [f"ppo:{PPO_MODEL}", "ismcts:simulations=2,depth=20"], 2),
    ("sobek", ["heuristic", "greedy", "random"], 3),
    ("kleopatra", ["heuristic", "ismcts:simulations=2,depth=20", "rllib:{policy}"], 3),
])
def test_games_on_ray_are_those_of_the_local_backend(local_ray, tmp_path: Path, game: str, specs: list[str],
                                                     games: int) -> None:
    policy = random_policy(tmp_path / "policy.zip", game, len(specs))
    specs = [spec.format(policy=policy) for spec in specs]
    on_ray = play_tournament(specs, games, game=game, seed=11, backend="ray", keep_actions=games)
    local = play_tournament(specs, games, game=game, seed=11, workers=1, keep_actions=games)
    assert on_ray == local and len(on_ray) == games
    assert [record.actions for record in on_ray] == [record.actions for record in local]
    assert all(record.actions for record in on_ray)


def test_evaluate_with_the_ray_backend_reports_what_the_local_one_does(local_ray, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    arguments = ["--game", "kleopatra", "--players", "3", "--games", "6", "--agents", "heuristic", "greedy", "random",
                 "--seed", "3"]
    evaluate([*arguments, "--backend", "ray", "--out", str(tmp_path / "ray")])
    assert "heuristic" in capsys.readouterr().out
    evaluate([*arguments, "--backend", "local", "--workers", "1", "--out", str(tmp_path / "local")])
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    assert json.loads((tmp_path / "ray" / "evaluate.json").read_text())["backend"] == "ray"
    assert game_lines(tmp_path / "ray") == 6


def test_an_interrupted_tournament_on_ray_keeps_its_games_and_resumes_on_either_backend(
        no_local_ray: None, tmp_path: Path, sessions: list, capsys: pytest.CaptureFixture) -> None:
    arguments = ["--players", "2", "--games", "600", "--agents", "random", "random", "--seed", "1"]
    out = tmp_path / "cut"
    process = start([sys.executable, "evaluate.py", *arguments, "--backend", "ray", "--workers", "2",
                     "--out", str(out)])
    sessions.append(process)
    wait_for(lambda: game_lines(out) >= 30 or process.poll() is not None, 300, "the first games on Ray")
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    kept = game_lines(out)
    assert err.strip().splitlines()[-1] == (
        f"stopped by SIGTERM; the {kept:,} games played are kept in {out / 'games.jsonl'}; continue with: "
        f"sobek-env evaluate {' '.join(arguments)} --backend ray --workers 2 --out {out} --resume")
    assert 30 <= kept < 600
    wait_for(lambda: not session(process.pid), 60, "the local Ray to end with its driver")
    evaluate([*arguments, "--backend", "local", "--workers", "2", "--out", str(out), "--resume"])
    assert f"resuming: {kept:,} of 600 games already played" in capsys.readouterr().out
    evaluate([*arguments, "--workers", "2", "--out", str(tmp_path / "whole")])
    assert results(out) == results(tmp_path / "whole")


def test_a_ray_worker_killed_while_playing_is_replaced_and_the_results_are_unchanged(
        no_local_ray: None, tmp_path: Path, sessions: list) -> None:
    arguments = ["--players", "2", "--games", "200", "--agents", "heuristic", "random", "--seed", "2"]
    out = tmp_path / "ray"
    process = start([sys.executable, "evaluate.py", *arguments, "--backend", "ray", "--workers", "2",
                     "--out", str(out)])
    sessions.append(process)

    def playing() -> list[int]:
        return [pid for pid in session(process.pid) if command_line(pid).startswith("ray::_play_task")]

    killed: list[int] = []

    def kill_a_player() -> bool:
        """Kill a worker in the middle of a game, once some games have ended."""
        if process.poll() is not None:
            return True
        for pid in playing() if game_lines(out) >= 20 else []:
            with contextlib.suppress(ProcessLookupError):  # its game may just have ended
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return True
        return False

    wait_for(kill_a_player, 600, "a Ray worker playing a game")
    assert killed, process.communicate()
    _, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    assert killed[0] not in session(process.pid)
    evaluate([*arguments, "--workers", "2", "--out", str(tmp_path / "local")])
    assert results(out) == results(tmp_path / "local")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_address_is_refused_clearly_changing_nothing(no_local_ray: None, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture) -> None:
    port = free_port()
    with pytest.raises(SystemExit) as exit_info:
        evaluate(["--players", "2", "--games", "2", "--agents", "random", "random", "--backend", "ray",
                  "--address", f"127.0.0.1:{port}", "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"sobek-env evaluate: error: no Ray cluster answers at --address 127.0.0.1:{port} (Connection refused); start "
        "one there with ray start --head, or give the address it printed")
    assert not (tmp_path / "out").exists()


def test_a_cluster_is_reached_by_its_address(no_local_ray: None, tmp_path: Path, sessions: list) -> None:
    port, client = free_port(), free_port()
    head = start([str(Path(sys.executable).with_name("ray")), "start", "--head", "--block", f"--port={port}",
                  "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats",
                  f"--ray-client-server-port={client}"])
    sessions.append(head)

    def answers() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            return head.poll() is not None
        return True

    wait_for(answers, 180, "the Ray head to listen")
    assert head.poll() is None, head.communicate()
    arguments = ["--game", "sobek", "--players", "3", "--games", "6", "--agents", "heuristic", "greedy", "random",
                 "--seed", "5"]
    # Ray's clusters authenticate their drivers with the head's token (~/.ray/auth_token on this machine)
    driver = start([sys.executable, "evaluate.py", *arguments, "--backend", "ray", "--address", f"127.0.0.1:{port}",
                    "--out", str(tmp_path / "cluster")], RAY_AUTH_MODE="token")
    sessions.append(driver)
    out, err = driver.communicate(timeout=600)
    assert driver.returncode == 0, err
    assert re.search(r"heuristic\s+\d", out)
    evaluate([*arguments, "--workers", "1", "--out", str(tmp_path / "local")])
    assert results(tmp_path / "cluster") == results(tmp_path / "local")
    head.send_signal(signal.SIGTERM)  # ray start --block stops what it started
    head.communicate(timeout=120)
    wait_for(lambda: not session(head.pid), 60, "the Ray head's processes to end")
