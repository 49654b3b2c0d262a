"""Stress run: play many games with varied policies, check every invariant after every step,
and count how often each action, character power, token and rare path of the rules was reached.

    python -m sobek_env.stress --games 100000 --workers 2 [--seed 0] [--players 2 3 4]
                               [--env-every 10] [--json report.json] [--progress]

Game ``i`` uses seed ``seed + i``: its player count, rules options, policies and
every choice follow from that seed alone, so a run is identical for any number
of workers, and a failure names the seed that replays it. After every step the
state must pass :func:`sobek_env.invariants.check_play`; once per game (at a
step drawn from its seed) the state is written to JSON, read back, compared, and
play continues from the copy; every
``--env-every``-th game is played through the PettingZoo environment, checking
the action mask of the seat to move and of another seat, that observations lie in
the observation space, and that the rewards sum to the reward mode's definition.
The policies weight action kinds differently (characters, sets, events, hoarding
cards, collecting one goods to score big) so that rare corners are reached, not
only what uniform play reaches.

Game-length bound
-----------------
Every turn is a take, a character or a set (rules §3), and within a round:

* takes and Merchant picks each remove at least one card of the round's deck
  from the Nile, so there are at most ``D`` (54 cards, 45 with 2 players);
* a played character lies on the discard until the round ends: at most 9 plays,
  with at most 8 further steps (Vizier 2, Thief 2, each High Priest 1,
  Courtesan goods + ``done``), besides the Merchant's pick and the Courtesan's cards;
* a card laid on the table (set or Courtesan) never returns to a hand, and only
  ``C = D + 2n`` cards (the deck and the green hands) can ever be in a hand, so
  there are at most ``C`` such card steps and ``S = C // 3`` sets, each with a
  ``set:`` and a ``done`` step;
* the 5 tokens give at most 10 steps (the choice and one target each);
* each of the 2 Scribes makes opponents discard at most ``C - 6`` cards;
* rounds 2 and 3 open with the first-player choice.

Embalming, the Vizier and the Scribe move cards between hands and piles, but no
such move is a turn of its own, so they cannot make a cycle. A round therefore
takes at most ``D + 17 + 2(C - 6) + 2S + C + 10 + 1`` steps, and a game, with at
most 3 rounds and no choice before round 1, at most 3 times that minus 1:
**719 steps with 2 players, 869 with 3, 887 with 4** (:func:`step_bound`). The
bound is loose; the longest games measured are far shorter (see the report).

One corner of the rules is not counted because play cannot reach it: a corruption
penalty stopping at 0 (rules §8.3). The marker stands at ``p >= points`` when the
penalty comes, so it moves back ``lots <= p // 10`` times, one block of 5 spaces
each (every block holds each symbol once), and never runs out of earlier spaces.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import actions as A
from .actions import ACTION_NAMES
from .catalogue import (
    AMULET,
    BACKS,
    CHARACTERS,
    DEFAULT_GREEN_CARDS,
    DELIVERY_SIZE,
    FIRST_CHARACTER,
    GOODS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAIN_CARDS,
    ROUNDS,
    SCARAB,
    SCRIBE_HAND_LIMIT,
    SET_MIN_CARDS,
    START_HAND,
    TAKE_WINDOW,
    TOKENS,
    TOKENS_PER_ROUND,
    TWO_PLAYER_SET_ASIDE,
    make_rules,
)
from .env import REWARD_MODES, raw_env
from .invariants import check_mask, check_play
from .scoring import horizontal_sets
from .state import GameState

CHARACTER_PLAY_STEPS = 8  # Vizier 2, Thief 2, High Priest 1, High Priestess 1, Courtesan goods + done
SCRIBES = sum(1 for c in CHARACTERS if c.startswith("scribe"))
CHUNK = 100               # games per task handed to a worker

# Action weights of each policy, by action name or name prefix (default 1).
PROFILES: dict[str, dict[str, float]] = {
    "uniform": {},
    "characters": {"character": 40.0},
    "sets": {"set": 40.0, "card": 4.0},
    "events": {"set": 40.0, "done": 40.0, "token:flood": 10.0, "token:embalming": 4.0, "token:prosperity": 4.0},
    "hoarder": {
        "take:0": 1.0, "take:1": 2.0, "take:2": 3.0, "take:3": 4.0, "set": 0.02, "character": 0.1,
        "character:scribe-fish": 30.0, "character:scribe-wheat": 30.0, "character:queen": 5.0,
    },
}
ENV_OBSERVATION_MODES = ("original", "memory")

# Every counter of the report, by section; a counter never reached is listed as zero.
SECTIONS: dict[str, tuple[str, ...]] = {
    "games": (
        *(f"game:{n}-players" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)),
        "game:collectors", "game:rules-varied", "game:via-env", "game:json-reload",
    ),
    "ends": ("end:normal", "end:early", "end:shared-victory", "end:sole-winner"),
    "powers": (
        "power:queen:drew-cards", "power:queen:deck-empty",
        "power:vizier:took-card", "power:vizier:empty-pile",
        "power:merchant:in-window", "power:merchant:beyond-window", "power:merchant:emptied-nile",
        "power:high-priest:discarded", "power:high-priest:nothing",
        "power:thief:stole-green", "power:thief:stole-beige", "power:thief:stole-orange", "power:thief:empty-hand",
        "power:high-priestess:discarded", "power:high-priestess:nothing",
        "power:scribe:no-opponent-over-6", "power:scribe:1-opponent", "power:scribe:2-opponents",
        "power:scribe:3-opponents", "power:scribe:discard",
        "power:courtesan:no-set", "power:courtesan:1-card", "power:courtesan:2-cards",
    ),
    "tokens": (
        "token:guild:pushed-back", "token:guild:several-targets", "token:guild:no-target",
        "token:flood:extra-turn", "token:flood:chain",
        "token:curse:placed", "token:curse:both-on-one-player",
        "token:prosperity:placed", "token:prosperity:both-on-one-set", "token:prosperity:no-set",
        "token:embalming:cards", "token:embalming:empty-pile",
        "token:deceit:points", "token:deceit:zero",
        "token:none-left",
    ),
    "sets and rounds": (
        "set:new", "set:extension", "set:amulets-only", "set:with-character",
        "delivery:full", "delivery:short",
        "round:scored", "round:most-corrupt-tie", "round:nobody-corrupt", "round:penalised",
        "round:horizontal-set", "round:horizontal-amulets-only",
        "round:first-player-tie", "round:first-player-self", "round:first-player-other",
    ),
    "actions": tuple(f"action:{name}" for name in ACTION_NAMES),
}
COUNTERS = frozenset(key for keys in SECTIONS.values() for key in keys)

# The rare paths the stress run must show reached, as sums of counters.
RARE_PATHS: dict[str, tuple[str, ...]] = {
    "normal end (after round 3)": ("end:normal",),
    "early end (after round 2, a score over 100)": ("end:early",),
    "shared victory": ("end:shared-victory",),
    "Queen's short delivery": ("delivery:short",),
    "Scribe with several opponents": ("power:scribe:2-opponents", "power:scribe:3-opponents"),
    "Flood chain": ("token:flood:chain",),
}


def step_bound(num_players: int) -> int:
    """The most steps a game of ``num_players`` can take (derived in the module docstring)."""
    greens = sum(DEFAULT_GREEN_CARDS.values())
    deck = sum(make_rules(num_players).catalogue) - greens - (TWO_PLAYER_SET_ASIDE if num_players == 2 else 0)
    cards = deck + START_HAND * num_players
    per_round = (
        deck + len(CHARACTERS) + CHARACTER_PLAY_STEPS + SCRIBES * (cards - SCRIBE_HAND_LIMIT)
        + 2 * (cards // SET_MIN_CARDS) + cards + 2 * TOKENS_PER_ROUND + 1
    )
    return ROUNDS * per_round - 1


# ---------------------------------------------------------------------- policies


def profile_weights(profile: dict[str, float]) -> tuple[float, ...]:
    """The weight of every action id under a profile (exact name first, then its prefix)."""
    return tuple(profile.get(name, profile.get(name.split(":")[0], 1.0)) for name in ACTION_NAMES)


class Policy:
    """Chooses among the legal actions at random, with weights by action id."""

    def __init__(self, weights: Sequence[float]) -> None:
        self.table = weights

    def weights(self, s: GameState, legal: list[int]) -> list[float]:
        return [self.table[a] for a in legal]


class Collector(Policy):
    """Collects one goods to score big: takes what fits it (its scarab cards first), lays it in
    one late set, then extends it, adds Prosperity and Courtesan cards (reaches the early end)."""

    def __init__(self, goods: int, patience: int) -> None:
        super().__init__(profile_weights({"card": 10.0, "done": 0.1, "token:prosperity": 50.0, "character": 0.3}))
        self.goods = goods
        self.patience = patience  # fitting cards in hand before laying the set

    def weights(self, s: GameState, legal: list[int]) -> list[float]:
        fits, p, out = s.rules.fits[self.goods], s.current_player, super().weights(s, legal)
        laid = s.sets[p][self.goods] is not None
        for i, a in enumerate(legal):
            if a < A.CHARACTER:  # a take (skipping ``a`` cards) or the Merchant's pick
                kind = s.nile[a]
                value = 40.0 if kind == SCARAB[self.goods] else 20.0 if kind in fits else 0.3
                out[i] = value / (1 + 3 * (a if s.phase is None else 0))
            elif a == COURTESAN_ACTION and laid:
                out[i] = 50.0
            elif A.SET <= a < A.CARD:
                enough = s.fitting_in_hand(p, self.goods) >= (SET_MIN_CARDS if laid else self.patience)
                ready = enough or len(s.deck) < DELIVERY_SIZE
                out[i] = 100.0 if a - A.SET == self.goods and ready else 0.01
            elif a == A.GOODS_CHOICE + self.goods:
                out[i] = 10.0
        return out


COURTESAN_ACTION = ACTION_NAMES.index("character:courtesan")
WEIGHTS = {name: profile_weights(profile) for name, profile in PROFILES.items()}


def random_rules(rng: random.Random) -> dict[str, dict]:
    """Rules options (rules §11) drawn at random, within what ``make_rules`` accepts."""
    scarabs = {g: rng.randint(0, 9) for g in GOODS if rng.random() < 0.5}
    green = dict.fromkeys(GOODS, 0)
    for _ in range(sum(DEFAULT_GREEN_CARDS.values())):
        g = rng.choice([g for g in GOODS if green[g] < PLAIN_CARDS[g]])
        green[g] += 1
    families = {c: rng.choice(GOODS) for c in CHARACTERS if rng.random() < 0.5}
    return {"scarabs": scarabs, "green_cards": green, "families": families}


@dataclass(frozen=True)
class GameSetup:
    """Everything a stress game is, drawn from its seed."""

    seed: int
    num_players: int
    options: dict
    policies: tuple[Policy, ...]  # per seat
    reload_step: int              # the step after which the state goes through JSON
    via_env: bool
    observation_mode: str
    reward_mode: str


def game_setup(seed: int, players: Sequence[int], env_every: int) -> GameSetup:
    """Draw a game's player count, rules, policies and checks from its seed.

    A game is played by collectors of distinct goods (15%), by one profile at
    every seat, or by a profile drawn for each seat; 10% of games vary the rules options.
    """
    rng = random.Random(f"sobek-stress:{seed}")
    n = players[seed % len(players)]
    options = random_rules(rng) if rng.random() < 0.1 else {}
    draw = rng.random()
    if draw < 0.15:
        policies: tuple[Policy, ...] = tuple(Collector(g, rng.randint(5, 9)) for g in rng.sample(range(len(GOODS)), n))
    else:
        names = [rng.choice(sorted(PROFILES))] * n if draw < 0.55 else [rng.choice(sorted(PROFILES)) for _ in range(n)]
        policies = tuple(Policy(WEIGHTS[name]) for name in names)
    return GameSetup(
        seed=seed,
        num_players=n,
        options=options,
        policies=policies,
        reload_step=rng.randrange(1, 120),
        via_env=env_every > 0 and seed % env_every == 0,
        observation_mode=rng.choice(ENV_OBSERVATION_MODES),
        reward_mode=rng.choice(REWARD_MODES),
    )


# ---------------------------------------------------------------------- what a game reached


class Tracker:
    """Applies each action and counts the rules' paths it took, from the state before and after."""

    def __init__(self, counts: Counter) -> None:
        self.counts = counts
        self.character = ""      # the character whose power is being resolved
        self.flood_player = -1   # who is playing Flood turns, and how many Floods in a row
        self.flood_streak = 0
        self.turns = 0
        self._phases: dict[str | None, Callable[[GameState, int, Callable[[int], None]], None]] = {
            None: self._turn_start, "set": self._set, "token": self._token, "guild": self._guild,
            "curse": self._curse, "prosperity": self._prosperity, "priest": self._priest,
            "vizier": self._vizier, "vizier_card": self._vizier_card, "thief": self._thief,
            "thief_back": self._thief_back, "scribe": self._scribe, "courtesan": self._courtesan,
            "courtesan_card": self._courtesan_card, "merchant": self._merchant, "first_player": self._first_player,
        }

    def step(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        """Play ``a`` with ``act`` (which applies it to ``s``) and count what happened."""
        self.counts[f"action:{ACTION_NAMES[a]}"] += 1
        self._phases[s.phase](s, a, act)

    def _turn_start(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        self.turns += 1
        if s.current_player != self.flood_player:
            self.flood_streak = 0
        if a < A.CHARACTER:
            self._take(s, a, act, corruption=True)
        elif a < A.SET:
            self.character = CHARACTERS[a - A.CHARACTER]
            deck = len(s.deck)
            act(a)
            if self.character == "queen":
                self.counts["power:queen:drew-cards" if len(s.deck) < deck else "power:queen:deck-empty"] += 1
            elif self.character.startswith("scribe"):
                forced = 1 + len(s.pending.queue) if s.phase == "scribe" else 0
                self.counts[
                    "power:scribe:no-opponent-over-6" if not forced
                    else f"power:scribe:{forced}-opponent{'s' if forced > 1 else ''}"
                ] += 1
            elif self.character == "courtesan" and s.phase is None:
                self.counts["power:courtesan:no-set"] += 1
        else:
            act(a)

    def _take(self, s: GameState, a: int, act: Callable[[int], None], corruption: bool) -> None:
        p, position, deck, round_ = s.current_player, a - A.TAKE, len(s.deck), s.round
        last = position == len(s.nile) - 1 if corruption else len(s.nile) == 1
        horizontal = []
        if last and not s.deck:  # rules §5: this take ends the round; predict the horizontal sets
            hands = [list(h) for h in s.hands]
            hands[p][s.nile[position]] += 1
            horizontal = [cards for hand in hands for _, cards in horizontal_sets(hand, s.rules)]
        act(a)
        if last and not corruption:
            self.counts["power:merchant:emptied-nile"] += 1
        if s.over or s.round != round_:
            self._round_end(s, horizontal)
        elif len(s.deck) < deck:
            self.counts["delivery:full" if deck - len(s.deck) == DELIVERY_SIZE else "delivery:short"] += 1

    def _round_end(self, s: GameState, horizontal: list[list[int]]) -> None:
        log, c = s.round_log[-1], self.counts
        self.flood_streak = 0
        c["round:scored"] += 1
        c["round:most-corrupt-tie"] += len(log["most_corrupt"]) > 1
        c["round:nobody-corrupt"] += not log["most_corrupt"]
        c["round:penalised"] += any(log["penalty"])
        c["round:horizontal-set"] += len(horizontal)
        c["round:horizontal-amulets-only"] += sum(sum(cards) == cards[AMULET] for cards in horizontal)
        if s.over:
            c["end:normal" if s.round == ROUNDS else "end:early"] += 1
            c["end:shared-victory" if len(s.winners) > 1 else "end:sole-winner"] += 1
        else:
            low = min(s.markers)
            c["round:first-player-tie"] += s.markers.count(low) > 1

    def _set(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        if a != A.DONE:
            act(a)
            return
        p, pend = s.current_player, s.pending
        cards, extension = list(pend.cards), s.sets[p][pend.goods] is not None
        act(a)
        c = self.counts
        c["set:extension" if extension else "set:new"] += 1
        c["set:amulets-only"] += sum(cards) == cards[AMULET]
        c["set:with-character"] += any(cards[FIRST_CHARACTER:])
        c["token:none-left"] += s.phase != "token"

    def _token(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        token, p = TOKENS[a - A.TOKEN], s.current_player
        pile = sum(s.piles[p])
        act(a)
        c = self.counts
        if token.startswith("guild"):
            if s.phase != "guild":
                c["token:guild:no-target"] += 1
            elif len(s.legal_actions()) > 1:
                c["token:guild:several-targets"] += 1
        elif token == "flood":
            c["token:flood:extra-turn"] += 1
            self.flood_streak = self.flood_streak + 1 if self.flood_player == p else 1
            self.flood_player = p
            c["token:flood:chain"] += self.flood_streak > 1
        elif token == "prosperity" and s.phase != "prosperity":
            c["token:prosperity:no-set"] += 1
        elif token == "embalming":
            c["token:embalming:cards" if pile else "token:embalming:empty-pile"] += 1
        elif token == "deceit":
            c["token:deceit:points" if pile else "token:deceit:zero"] += 1

    def _guild(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)
        self.counts["token:guild:pushed-back"] += 1

    def _curse(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        target = (s.current_player + a - A.PLAYER) % s.num_players
        act(a)
        self.counts["token:curse:placed"] += 1
        self.counts["token:curse:both-on-one-player"] += s.curses[target] > 1

    def _prosperity(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        table_set = s.sets[s.current_player][a - A.GOODS_CHOICE]
        act(a)
        self.counts["token:prosperity:placed"] += 1
        self.counts["token:prosperity:both-on-one-set"] += table_set.prosperity > 1

    def _priest(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        pile = s.piles[s.current_player]
        before = sum(pile)
        act(a)
        self.counts[f"power:{self.character}:{'discarded' if sum(pile) < before else 'nothing'}"] += 1

    def _vizier(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)
        self.counts["power:vizier:empty-pile"] += s.phase != "vizier_card"

    def _vizier_card(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)
        self.counts["power:vizier:took-card"] += 1

    def _thief(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)
        self.counts["power:thief:empty-hand"] += s.phase != "thief_back"

    def _thief_back(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)
        self.counts[f"power:thief:stole-{BACKS[a - A.BACK]}"] += 1

    def _scribe(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)
        self.counts["power:scribe:discard"] += 1

    def _courtesan(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)

    def _courtesan_card(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)
        if a == A.DONE:
            self.counts["power:courtesan:1-card"] += 1
        elif s.phase is None:
            self.counts["power:courtesan:2-cards"] += 1

    def _merchant(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        within = a - A.TAKE < TAKE_WINDOW
        self.counts["power:merchant:in-window" if within else "power:merchant:beyond-window"] += 1
        self._take(s, a, act, corruption=False)

    def _first_player(self, s: GameState, a: int, act: Callable[[int], None]) -> None:
        act(a)
        self.counts["round:first-player-self" if a == A.PLAYER else "round:first-player-other"] += 1



# ---------------------------------------------------------------------- playing


@dataclass
class Summary:
    """What a batch of games reached; batches merge by sums and maxima, so order does not matter."""

    games: int = 0
    steps: int = 0
    counts: Counter = field(default_factory=Counter)
    steps_by_players: Counter = field(default_factory=Counter)
    longest: dict[int, int] = field(default_factory=dict)      # players -> most steps in a game
    most_turns: dict[int, int] = field(default_factory=dict)   # players -> most turns in a game
    max_score: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)  # (game seed, what broke)

    def merge(self, other: Summary) -> None:
        self.games += other.games
        self.steps += other.steps
        self.counts.update(other.counts)
        self.steps_by_players.update(other.steps_by_players)
        for mine, theirs in ((self.longest, other.longest), (self.most_turns, other.most_turns)):
            for n, v in theirs.items():
                mine[n] = max(mine.get(n, 0), v)
        self.max_score = max(self.max_score, other.max_score)
        self.failures = sorted(self.failures + other.failures)


class StressFailure(AssertionError):
    """A game broke a check of the stress run itself (bound, JSON reload, environment)."""


def _reload(s: GameState) -> GameState:
    copy = GameState.from_json(s.to_json())
    if copy != s or copy.legal_actions() != s.legal_actions():
        raise StressFailure("the state read back from JSON differs from the original")
    return copy


def _expected_rewards(s: GameState, mode: str) -> list[float]:
    """INTERFACE.md: what each seat's rewards over a whole game add up to in ``mode``."""
    scores = s.scores
    if mode == "win":
        return [1.0 if p in s.winners else -1.0 for p in range(s.num_players)]
    if mode == "margin":
        return [(v - max(w for q, w in enumerate(scores) if q != p)) / 100 for p, v in enumerate(scores)]
    return [v / 100 for v in scores]


class EnvDriver:
    """Plays a game through ``raw_env``, checking masks, observations and rewards on the way."""

    def __init__(self, setup: GameSetup) -> None:
        self.env = raw_env(
            num_players=setup.num_players, observation_mode=setup.observation_mode,
            reward_mode=setup.reward_mode, **setup.options,
        )
        self.env.reset(seed=setup.seed)
        self.space = self.env.observation_space("player_0")
        self.totals = [0.0] * setup.num_players

    def before(self, s: GameState) -> None:
        env, n = self.env, s.num_players
        if env.agent_selection != f"player_{s.current_player}":
            raise StressFailure(f"{env.agent_selection} selected but seat {s.current_player} must act")
        for seat in (s.current_player, (s.current_player + 1) % n):
            obs = env.observe(f"player_{seat}")
            check_mask(s, seat, obs["action_mask"])
            if not self.space.contains(obs):
                raise StressFailure(f"seat {seat}'s observation lies outside the observation space")

    def act(self, a: int) -> None:
        self.env.step(a)
        for p in range(len(self.totals)):
            self.totals[p] += self.env.rewards[f"player_{p}"]

    def finish(self, s: GameState) -> None:
        expected = _expected_rewards(s, self.env.reward_mode)
        if any(abs(got - want) > 1e-9 for got, want in zip(self.totals, expected)):
            raise StressFailure(f"{self.env.reward_mode} rewards add up to {self.totals}, not {expected}")


def play_game(setup: GameSetup, summary: Summary) -> None:
    """Play one game, checking every invariant after every step; record it in ``summary``."""
    n, c = setup.num_players, summary.counts
    c[f"game:{n}-players"] += 1
    c["game:rules-varied"] += bool(setup.options)
    c["game:collectors"] += isinstance(setup.policies[0], Collector)
    c["game:via-env"] += setup.via_env
    tracker = Tracker(c)
    steps = 0
    try:
        driver = EnvDriver(setup) if setup.via_env else None
        s = driver.env.game if driver else GameState.new(n, seed=setup.seed, **setup.options)
        check_play(s)
        rng = random.Random(f"sobek-stress-policy:{setup.seed}")
        bound = step_bound(n)
        while not s.is_over:
            if steps >= bound:
                raise StressFailure(f"the game is still running after {bound} steps, its derived bound")
            legal = s.legal_actions()
            a = rng.choices(legal, setup.policies[s.current_player].weights(s, legal))[0]
            if driver:
                driver.before(s)
            tracker.step(s, a, driver.act if driver else s.apply)
            steps += 1
            check_play(s)
            if steps == setup.reload_step and not s.is_over:
                s = _reload(s)
                c["game:json-reload"] += 1
                if driver:
                    driver.env.game = s
        if driver:
            driver.finish(s)
        summary.max_score = max(summary.max_score, *s.scores)
    except Exception as exc:  # a stress run reports every failure with the seed that replays it
        summary.failures.append((setup.seed, f"step {steps}: {type(exc).__name__}: {exc}"))
    summary.games += 1
    summary.steps += steps
    summary.steps_by_players[n] += steps
    summary.longest[n] = max(summary.longest.get(n, 0), steps)
    summary.most_turns[n] = max(summary.most_turns.get(n, 0), tracker.turns)


def play_range(task: tuple[int, int, tuple[int, ...], int]) -> Summary:
    """Play games ``start`` .. ``start + count - 1`` (a worker's task)."""
    start, count, players, env_every = task
    summary = Summary()
    for seed in range(start, start + count):
        play_game(game_setup(seed, players, env_every), summary)
    return summary


def run(
    games: int, workers: int = 1, seed: int = 0, players: Sequence[int] = (2, 3, 4), env_every: int = 10,
    progress: Callable[[int], None] | None = None,
) -> tuple[Summary, float]:
    """Play ``games`` games on ``workers`` processes; the merged summary and the seconds it took."""
    tasks = [
        (seed + start, min(CHUNK, games - start), tuple(players), env_every) for start in range(0, games, CHUNK)
    ]
    total = Summary()
    began = time.perf_counter()
    if workers == 1:
        parts = map(play_range, tasks)
        for part in parts:
            total.merge(part)
            if progress:
                progress(total.games)
    else:
        with multiprocessing.Pool(workers) as pool:
            for part in pool.imap_unordered(play_range, tasks):
                total.merge(part)
                if progress:
                    progress(total.games)
    return total, time.perf_counter() - began


# ---------------------------------------------------------------------- the report


def report_data(summary: Summary, seconds: float, args: dict) -> dict:
    """The report as a JSON-ready dict."""
    return {
        "run": args,
        "games": summary.games,
        "seconds": round(seconds, 2),
        "games_per_second": round(summary.games / seconds, 1) if seconds else None,
        "steps": summary.steps,
        "length": {
            str(n): {
                "games": summary.counts[f"game:{n}-players"],
                "mean_steps": round(summary.steps_by_players[n] / summary.counts[f"game:{n}-players"], 1),
                "max_steps": summary.longest[n],
                "max_turns": summary.most_turns[n],
                "bound": step_bound(n),
            }
            for n in sorted(summary.longest)
        },
        "max_score": summary.max_score,
        "rare_paths": {name: sum(summary.counts[k] for k in keys) for name, keys in RARE_PATHS.items()},
        "counts": {key: summary.counts[key] for keys in SECTIONS.values() for key in keys},
        "never_reached": [key for keys in SECTIONS.values() for key in keys if not summary.counts[key]],
        "failures": [{"seed": s, "error": e} for s, e in summary.failures],
    }


def format_report(data: dict) -> str:
    """The report as readable text."""
    run_args, counts = data["run"], data["counts"]
    seconds = max(data["seconds"], 0.01)
    every = run_args["env_every"]
    lines = [
        f"Sobek stress run: {data['games']} games, seeds {run_args['seed']}..{run_args['seed'] + data['games'] - 1},"
        f" players {'/'.join(map(str, run_args['players']))}, {run_args['workers']} worker(s)",
        f"time {data['seconds']:.1f} s, {data['games'] / seconds:.1f} games/s,"
        f" {data['steps']} steps ({data['steps'] / seconds:.0f} steps/s)",
        f"invariants checked after each of the {data['steps']} steps; JSON reload and replay in"
        f" {data['counts']['game:json-reload']} games;"
        + (f" every {every}th game through the environment" if every else " no game through the environment"),
        f"failures: {len(data['failures'])}",
        "",
        "Game length (steps per game; the bound is derived in sobek_env/stress.py)",
        f"  {'players':>7} {'games':>8} {'mean':>7} {'max':>5} {'bound':>6} {'max turns':>10}",
    ]
    for n, row in data["length"].items():
        lines.append(
            f"  {n:>7} {row['games']:>8} {row['mean_steps']:>7} {row['max_steps']:>5} {row['bound']:>6}"
            f" {row['max_turns']:>10}"
        )
    lines += [f"  highest final score: {data['max_score']}", "", "Rare paths"]
    lines += [f"  {name:<46} {v:>10}" for name, v in data["rare_paths"].items()]
    for section, keys in SECTIONS.items():
        lines += ["", section.capitalize()]
        width = 2 if section == "actions" else 1
        cells = [f"{key.split(':', 1)[1]:<30} {counts[key]:>10}" for key in keys]
        lines += ["  " + "   ".join(cells[i:i + width]) for i in range(0, len(cells), width)]
    lines += ["", "Never reached: " + (", ".join(data["never_reached"]) or "none")]
    if data["failures"]:
        lines += ["", "Failures (replay with GameState.new and the seed):"]
        lines += [f"  seed {f['seed']}: {f['error']}" for f in data["failures"][:50]]
    return "\n".join(lines)


# ---------------------------------------------------------------------- command line


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value
    return parse


def _player_count(text: str) -> int:
    value = _int_at_least(MIN_PLAYERS)(text)
    if value > MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"Sobek is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {value}")
    return value


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m sobek_env.stress",
        description="Play many games, check every invariant after every step, count the rare paths reached.",
    )
    parser.add_argument("--games", type=_int_at_least(1), default=1000, help="games to play (default 1000)")
    parser.add_argument("--workers", type=_int_at_least(1), default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of the first game (default 0)")
    parser.add_argument("--players", type=_player_count, nargs="+", default=[2, 3, 4],
                        help="player counts, used in turn (default 2 3 4)")
    parser.add_argument("--env-every", type=_int_at_least(0), default=10,
                        help="play every Nth game through the PettingZoo environment (0: never; default 10)")
    parser.add_argument("--json", type=Path, help="also write the report as JSON to this file")
    parser.add_argument("--progress", action="store_true", help="print progress to stderr")
    args = parser.parse_args(argv)
    if len(set(args.players)) != len(args.players):
        parser.error(f"argument --players: each count once, got {args.players}")
    if args.json is not None and not args.json.parent.is_dir():
        parser.error(f"argument --json: directory {str(args.json.parent)!r} does not exist")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stress test; exit status 1 if any game failed a check."""
    args = parse_args(argv)
    step = max(args.games // 20, 1)

    def progress(done: int) -> None:
        if done % step < CHUNK or done == args.games:
            print(f"{done}/{args.games} games", file=sys.stderr, flush=True)

    summary, seconds = run(args.games, args.workers, args.seed, args.players, args.env_every,
                           progress if args.progress else None)
    data = report_data(summary, seconds, {
        "games": args.games, "workers": args.workers, "seed": args.seed,
        "players": args.players, "env_every": args.env_every,
    })
    print(format_report(data))
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
