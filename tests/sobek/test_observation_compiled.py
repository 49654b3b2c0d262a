"""The compiled observation encoder (sobek_env/sobek/_observe.pyx) writes exactly the Python reference's vector,
and its decoder reads exactly what the Python reference reads.

The extension is built by the package's install (``make test`` installs it), so its absence is a
failure here, not a skip. ``SOBEK_LONG=1`` plays more games.
"""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from sobek_env import GameState
from sobek_env.sobek import GAME
from sobek_env.sobek import decode as D
from sobek_env.sobek import observation as O
from sobek_env.sobek import phases as P
from sobek_env.sobek.phases import PHASES
from sobek_env.sobek.scoring import TableSet
from sobek_env.sobek.view import View

from .scenario import SCENARIOS, load

LONG = os.environ.get("SOBEK_LONG") == "1"
GAMES = 40 if LONG else 6  # random games per player count and mode, every seat observed at every step


def compiled_module():
    try:
        from sobek_env.sobek import _observe
    except ImportError as error:
        pytest.fail(
            "the compiled observation encoder sobek_env._observe was not built "
            f"({error}); reinstall with `pip install -e .` on a machine with Cython and a C compiler"
        )
    return _observe


class Pair:
    """A compiled encoder and a Python reference observer, for one player count and mode."""

    def __init__(self, num_players: int, mode: str) -> None:
        self.reference = O.Observer(num_players, mode)
        compiled = O.Observer(num_players, mode)
        at = {name: sl.start for name, sl in O.observation_layout(num_players).items()}
        self.compiled = compiled_module().Encoder(compiled.buffer, at, num_players, compiled.memory)

    def check(self, s: GameState, where: str) -> None:
        for seat in range(s.rules.num_players):
            want = self.reference.encode_python(s, seat).copy()
            got = self.compiled.encode(s, seat).copy()
            if not np.array_equal(got, want):
                differ = np.flatnonzero(got != want)
                layout = O.observation_layout(s.rules.num_players)
                names = sorted({name for i in differ for name, sl in layout.items() if sl.start <= i < sl.stop})
                pytest.fail(f"{where}, seat {seat}: vectors differ in {names} at {differ.tolist()}")


def random_game(num_players: int, seed: int, **options) -> Iterator[GameState]:
    """Every state of one game of random legal play, the final one included."""
    s = GameState.new(num_players, seed=seed, **options, engine="python")
    rng = random.Random(seed)
    yield s
    while not s.is_over:
        s.apply(rng.choice(s.legal_actions()))
        yield s


def test_the_extension_is_built() -> None:
    compiled_module()
    if os.environ.get("SOBEK_PURE_PYTHON", "") in ("", "0"):
        assert O.COMPILED, "sobek_env._observe imports but Observer does not use it"


@pytest.mark.parametrize("mode", O.MODES)
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_encode_identically(num_players: int, mode: str) -> None:
    pair = Pair(num_players, mode)
    phases = set()
    for game in range(GAMES):
        options = {"scarabs": {"ivory": 5, "cattle": 0}} if game == GAMES - 1 else {}
        for step, s in enumerate(random_game(num_players, 1000 * num_players + game, **options)):
            pair.check(s, f"game {game}, step {step}")
            phases.add(s.phase)
    assert len(phases) > 5  # random play went through several sub-decisions


def _busy_table(num_players: int, seed: int) -> GameState:
    """A mid-game state with sets (and Prosperity on them), Curses, piles and remembered cards everywhere."""
    s = GameState.new(num_players, seed=seed, engine="python")
    rng = random.Random(seed)
    for _ in range(40):
        if s.is_over or s.phase == "first_player":
            break
        s.apply(rng.choice(s.legal_actions()))
    for p in range(num_players):
        s.curses[p] = p % 3
        s.markers[p] = 17 * p + 3
        s.piles[p][(5 * p) % 28] += 2
        for viewer in range(num_players):
            s.known_piles[viewer][p][(5 * p + viewer) % 28] += 1
            s.known_hands[viewer][p][(3 * p + 1) % 28] += 1
        s.token_glimpse[p] = p % 2 == 1
        for g in range(p % 3 + 1):
            cards = [0] * 28
            cards[2 * g], cards[2 * g + 1], cards[18] = 2, 1 + p, g % 2  # plain, scarab, amulet
            s.sets[p][g] = TableSet(cards, prosperity=(p + g) % 2)
        horizontal = [0] * 28
        horizontal[2 * p], horizontal[18] = 2, 1
        s.horizontal[p].append((p % 6, horizontal))
    amulets = [0] * 28
    amulets[18] = 3
    s.sets[0][6] = TableSet(amulets, prosperity=1)  # an amulets-only set
    seats = range(num_players)
    s.round_log.append({"round": 1, "points": [30 + p for p in seats], "corruption": [4 + 2 * p for p in seats],
                        "curses": [p % 2 for p in seats], "most_corrupt": [num_players - 1],
                        "penalty": [0] * (num_players - 1) + [12], "horizontal": [[p % 2] * 28 for p in seats]})
    return s


def _pendings(num_players: int) -> Iterator[P.SobekPhase]:
    """Every sub-decision, with each of its parameters' values (goods, set slot, target, actor, hieroglyph)."""
    building = [0] * 28
    building[8], building[9], building[18] = 1, 2, 1
    for goods in range(6):
        yield P.BuildSet(goods, list(building))
        yield P.HorizontalSet(goods, list(building), [])
        yield P.PriestCharacters(goods)
    for slot in range(7):
        yield P.CourtesanCard(slot, list(building))
    for seat in range(num_players):
        yield P.VizierCard(seat)
        yield P.ThiefBack(seat)
        yield P.Scribe(seat, [])
    for symbol in range(4):
        yield P.Guild(symbol)
    yield P.Horizontal([])
    for phase in (P.ChooseToken, P.Curse, P.Prosperity, P.Priest, P.Vizier, P.Thief, P.CourtesanSet, P.Merchant,
                  P.FirstPlayer):
        yield phase()


@pytest.mark.parametrize("mode", O.MODES)
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_hand_built_pending_states_encode_identically(num_players: int, mode: str) -> None:
    pair = Pair(num_players, mode)
    s = _busy_table(num_players, seed=num_players)
    seen = set()
    for pending in _pendings(num_players):
        for mover in range(num_players):
            s.pending, s.current_player = pending, mover
            pair.check(s, f"pending {pending}, player {mover} to move")
        seen.add(type(pending))
    assert seen == set(PHASES[1:])


@pytest.mark.parametrize("name", sorted(path.stem for path in SCENARIOS.glob("*.json")))
def test_rule_scenarios_encode_identically(name: str) -> None:
    s = load(name)
    for mode in O.MODES:
        Pair(s.rules.num_players, mode).check(s, f"scenario {name}, {mode}")


def test_sobek_pure_python_forces_the_python_path() -> None:
    code = "import sobek_env.sobek.observation as O; print(O.COMPILED, O.Observer(2)._compiled)"
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "SOBEK_PURE_PYTHON": "1"},
        capture_output=True, text=True, check=True,
    ).stdout.split()
    assert out == ["False", "None"]


def test_observer_encode_matches_the_reference() -> None:
    """Observer.encode (compiled when built) against encode_python, through a 4-player game."""
    observer, reference = O.Observer(4, "memory"), O.Observer(4, "memory")
    for s in random_game(4, seed=5):
        for seat in range(4):
            assert np.array_equal(observer.encode(s, seat), reference.encode_python(s, seat))


# ---------------------------------------------------------------------- the compiled decoder


def mask_of(s: GameState) -> np.ndarray:
    mask = np.zeros(GAME.num_actions, dtype=np.int8)
    if not s.is_over:
        mask[s.legal_actions()] = 1
    return mask


def decoded_both_ways(observation: dict, num_players: int, rules: dict) -> tuple[D.View, D.View]:
    """The View of ``observation`` read by the compiled decoder, and by the Python reference."""
    compiled_module()
    got = D.View(observation, num_players, rules)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(D, "_observe", None)
        want = D.View(observation, num_players, rules)
    return got, want


def check_decoded(observation: dict, num_players: int, rules: dict, where: str) -> None:
    got, want = decoded_both_ways(observation, num_players, rules)
    # repr tells an int from a bool or a float, which == does not
    names = [f.name for f in dataclasses.fields(View)] + list(D.View.__slots__)
    differ = [name for name in names
              if hasattr(want, name) and repr(getattr(got, name, "missing")) != repr(getattr(want, name))]
    if differ:
        pytest.fail(f"{where}: the compiled decoder differs in {differ}")


@pytest.mark.parametrize("mode", O.MODES)
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_decode_identically(num_players: int, mode: str) -> None:
    observer = O.Observer(num_players, mode)
    hidden = 0
    for game in range(GAMES // 2):
        options = {"scarabs": {"ivory": 5, "cattle": 0}} if game == 0 else {}
        for step, s in enumerate(random_game(num_players, 2000 * num_players + game, **options)):
            for seat in range(num_players):
                observation = {"observation": observer.encode(s, seat).copy(), "action_mask": mask_of(s)}
                check_decoded(observation, num_players, options, f"game {game}, step {step}, seat {seat}")
            hidden += D.HIDDEN in D.View(observation, num_players, options).nile
    assert hidden  # some views held a face-down character, whose share of the unseen cards is scaled


def test_what_may_come_from_the_deck_is_summed_from_the_unseen_cards() -> None:
    # per goods, the unseen cards of the kinds dealt from the deck (and their scarabs); each view has lists
    # of its own
    observer, seen = O.Observer(3), 0
    for s in random_game(3, seed=11):
        observation = {"observation": observer.encode(s, 0).copy(), "action_mask": mask_of(s)}
        v = D.View(observation, 3)
        dealt = [k for k in range(len(v.unseen)) if k not in D.START_KINDS]
        assert v.coming == pytest.approx([sum(v.unseen[k] for k in dealt if k in v.members[g])
                                          for g in range(len(v.coming))])
        assert v.coming_scarabs == pytest.approx([sum(v.unseen[k] * v.kind_scarabs[k] for k in dealt
                                                      if k in v.members[g]) for g in range(len(v.coming))])
        assert (v.coming_amulets, v.coming_total) == pytest.approx((v.unseen[D.AMULET],
                                                                    sum(v.unseen[k] for k in dealt)))
        want = list(v.coming)
        v.coming[0] += 100.0
        v.coming_scarabs.append(1.0)
        again = D.View(observation, 3)
        assert again.coming == want and len(again.coming_scarabs) == len(want)
        seen += 1
    assert seen > 50


@pytest.mark.parametrize("num_players", [2, 4])
def test_hand_built_pending_states_decode_identically(num_players: int) -> None:
    s = _busy_table(num_players, seed=num_players)
    for mode in O.MODES:
        observer = O.Observer(num_players, mode)
        for pending in _pendings(num_players):
            s.pending, s.current_player = pending, 0
            observation = {"observation": observer.encode(s, 0).copy(), "action_mask": mask_of(s)}
            check_decoded(observation, num_players, {}, f"pending {pending}, {mode}")


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")  # the reference's NaN
@pytest.mark.parametrize("odd", [float("nan"), float("inf"), 3e9, -3e9, 2.5, -1.0])
def test_vectors_no_encoder_writes_decode_as_the_reference_reads_them(odd: float) -> None:
    s = _busy_table(3, seed=3)
    vector = O.Observer(3).encode(s, 0).copy()
    layout = O.observation_layout(3)
    for name in ("hand", "nile", "scores", "phase", "known_hands", "pile_backs"):
        bent = vector.copy()
        bent[layout[name].start] = odd
        observation = {"observation": bent, "action_mask": mask_of(s)}
        try:
            check_decoded(observation, 3, {}, f"{odd} in {name}")
        except (ValueError, OverflowError, IndexError) as error:  # the reference's own error, raised alike
            with pytest.raises(type(error)):
                D.View(observation, 3)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_vector_of_another_player_count_is_refused_not_read_with_this_layout(compiled: bool) -> None:
    """Regression (issue 34): a 4-player vector was read with the 2-player layout, without a word."""
    s = GameState.new(4, seed=3000, engine="python")
    observation = {"observation": O.Observer(4).encode(s, 0).copy(), "action_mask": mask_of(s)}
    with pytest.MonkeyPatch.context() as patch:
        if not compiled:
            patch.setattr(D, "_observe", None)
        for num_players, size in [(2, 692), (3, 875)]:
            with pytest.raises(ValueError, match=rf"^an observation for {num_players} players has {size} entries, "
                                                 r"got shape \(1058,\)$"):
                D.View(observation, num_players)
        assert D.View(observation, 4).n == 4
