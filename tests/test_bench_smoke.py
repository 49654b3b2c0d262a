"""The speed benchmark runs in its quick mode and reports positive figures (no speed is asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import sobek_env

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "bench_env.py"
OURS = ("sobek_engine_2p", "sobek_engine_4p", "sobek_aec_original_2p", "sobek_aec_memory_2p",
        "sobek_aec_original_4p", "sobek_aec_memory_4p", "sobek_single_2p", "sobek_single_4p", "sobek_ismcts_2p",
        "sobek_heuristic_2p", "kleopatra_heuristic_3p", "kleopatra_ismcts_3p", "sobek_openspiel_2p",
        "kleopatra_openspiel_3p", "sobek_ismcts_settings_2p", "kleopatra_ismcts_settings_3p",
        "sobek_python_heuristic_2p", "kleopatra_python_heuristic_3p")
NATIVE = ("sobek_native_ismcts_2p", "sobek_native_ismcts_settings_2p", "sobek_native_playouts_2p",
          "kleopatra_native_ismcts_3p", "kleopatra_native_ismcts_settings_3p", "kleopatra_native_playouts_3p")


def test_quick_benchmark_prints_a_table_of_positive_figures(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    # this checkout's package, whichever one is installed (as the suite's pythonpath does)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, str(BENCH), "--quick", "--breakdown", "--json", str(out)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert "sobek: engine, 4 players" in run.stdout and "Bars (same run):" in run.stdout
    assert "Where an agent-step" in run.stdout
    assert "OpenSpiel bridge: random play, CPU us per step" in run.stdout and "sobek, 2p:" in run.stdout
    rows = {row["key"]: row for row in json.loads(out.read_text())["rows"]}
    assert "Search on the native engine: Python | native | times cheaper" in run.stdout
    native = "native" in sobek_env.load_game("sobek").engines and "native" in sobek_env.load_game("kleopatra").engines
    for key in OURS + (NATIVE if native else ()):
        assert rows[key]["steps_per_s"] > 0 and rows[key]["games_per_s"] > 0 and rows[key]["ms_per_game"] > 0
    if native:  # the native engines' bars are set against gin_rummy and against their own Python engine
        bars = {bar["bar"]: bar for bar in json.loads(out.read_text())["bars"]}
        for name, n in (("sobek", 4), ("kleopatra", 3)):
            own = bars[f"{name}: native engine, {n} players, steps/s >= 10x its Python engine"]
            engines = rows[f"{name}_native_engine_{n}p"]["steps_per_s"] / rows[f"{name}_engine_{n}p"]["steps_per_s"]
            assert own["value"] == engines and own["met"] == (engines >= 10)
            assert f"{name}: native engine, {n} players, steps/s >= 10x gin" in bars
        for name, n in (("sobek", 2), ("kleopatra", 3)):  # native heuristic playouts against the Python heuristic
            bar = bars[f"{name}: native heuristic playouts, {n} players, steps/s >= 30x the Python heuristic's, "
                       "Python engine"]
            decisions = rows[f"{name}_native_playouts_{n}p"]["steps_per_s"] / rows[
                f"{name}_python_heuristic_{n}p"]["steps_per_s"]
            assert bar["value"] == decisions and bar["met"] == (decisions >= 30)
    assert rows["sobek_ismcts_2p"]["ratios"] == {}  # simulations are not environment steps
    assert rows["kleopatra_heuristic_3p"]["ratios"] == {}  # nor are a baseline's decisions
    for peer in ("leduc", "texas", "gin", "gin_obs"):  # measured when installed, else said so
        assert rows[peer].get("steps_per_s", 1) > 0
        assert "missing" not in rows[peer] or "pip install" in rows[peer]["missing"]
    assert "vector_env (native batch), learner steps per wall second by threads and games a call" in run.stdout
    scaling = {f["game"]: f for f in json.loads(out.read_text())["vector_scaling"]}
    assert set(scaling) == {"sobek", "kleopatra"}
    for f in scaling.values():
        assert set(f["steps_per_wall_s"]) == {"64", "256"}
        for speeds in f["steps_per_wall_s"].values():
            assert set(speeds) == {"1", "2"} and min(speeds.values()) > 0
        assert f["bytes_per_game"] > f["state_bytes"] > 0


def test_search_speed_script_measures_both_games() -> None:
    script = BENCH.parent / "bench_search.py"
    run = subprocess.run([sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    rows = {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines()[1:]}
    assert {name: row[0] for name, row in rows.items()} == {"sobek": "2", "kleopatra": "3"}
    for _, decisions, *figures in rows.values():
        assert int(decisions) >= 3 and all(float(figure) > 0 for figure in figures)
