"""The ``sobek-state/1`` JSON document (INTERFACE.md): writing it, and reading it strictly.

Reading checks types, ranges, known kinds, the 63 cards across all zones, the
round's tokens, and that the player to move has a legal action; it refuses
unknown or misspelled keys, duplicate keys, NaN, and any list longer than the
game allows. Everything it accepts satisfies ``invariants.check``. Every
failure is a StateFormatError whose message starts with the offending field.

Required fields: format, num_players, seed, round, first_player,
current_player, scores, players (each with a hand), nile, deck, tokens. The
others may be left out when empty: rules ({}), a player's corruption ([]),
curses (0), sets ([]) and horizontal_sets ([]); used_tokens, discard and
out_of_round ([]); pending (null); over (false); memory (nothing seen);
round_log ([]); extra_turns (0); rng (a fresh generator from seed). A field
that is present is checked in full.

``pending`` has a ``phase`` (a phase name of ``phases.PHASES``) and the fields
that phase's type lists (``fields``): set: ``goods`` and ``cards`` (laid so
far); courtesan_card: ``goods`` (a goods or ``amulet``) and ``cards`` (already
on the set); guild: ``hieroglyph``; vizier_card and thief_back: ``target`` (a
seat); scribe: ``actor`` (the Scribe's player) and ``queue`` (seats still to
discard after the current player); priest_characters: ``goods``; horizontal:
``queue`` (seats still to decide at the round's end); horizontal_set:
``goods``, ``cards`` and ``queue``.

``memory`` lists, per viewer, what he remembers (rules §10): ``hands`` and
``piles`` (per seat, the cards he saw go in and not leave) and ``tokens``
(whether he has looked through the round's face-down tokens). ``round_log``
lists the public summaries of the rounds scored, in order, up to the last one
scored (all of them in a game played from its start; a hand-built position may
keep only the last ones, or none); the round in progress is never logged.
"""

from __future__ import annotations

import json
import random
from typing import Any

from .. import document as D
from ..errors import InvariantError, StateFormatError
from .catalogue import (
    AMULET,
    AMULET_SET,
    CURSE,
    CURSE_WEIGHT,
    EARLY_END_ROUND,
    EARLY_END_SCORE,
    FLOOD,
    GOODS,
    KINDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    PROSPERITY_GOODS,
    ROUNDS,
    SET_SLOTS,
    TOKEN_COUNTS,
    TOKENS,
    TOKENS_PER_ROUND,
    TOTAL_CARDS,
    make_rules,
)
from .phases import PHASE_BY_NAME, SobekPhase
from .scoring import TableSet
from .state import ROUND_END_PHASES, GameState

FORMAT = "sobek-state/1"
MAX_SCORE = 10_000  # far above any reachable score; guards against nonsense numbers
NILE_MAX = 9
KEYS = ("format", "num_players", "rules", "seed", "round", "first_player", "current_player", "scores", "players",
        "nile", "deck", "tokens", "used_tokens", "discard", "out_of_round", "pending", "over", "memory",
        "round_log", "extra_turns", "rng")
PLAYER_KEYS = ("hand", "corruption", "curses", "sets", "horizontal_sets")
SET_KEYS = ("goods", "cards", "prosperity")
LOG_KEYS = ("round", "points", "corruption", "curses", "most_corrupt", "penalty", "horizontal")
MEMORY_KEYS = ("hands", "piles", "tokens")
RULES_KEYS = ("scarabs", "green_cards", "families")


def _names(counts: list[int]) -> list[str]:
    return [KINDS[k] for k, c in enumerate(counts) for _ in range(c)]


def _token_names(counts: list[int]) -> list[str]:
    return [TOKENS[t] for t, c in enumerate(counts) for _ in range(c)]


def _pending_doc(pending: SobekPhase | None) -> dict | None:
    return None if pending is None else {"phase": pending.name, **pending.document()}


def to_document(s: GameState) -> dict:
    """The state as a JSON-ready dict."""
    version, internal, gauss = s.rng.getstate()
    n = s.rules.num_players
    return {
        "format": FORMAT,
        "num_players": n,
        "rules": s.rules.overrides(),
        "seed": s.seed,
        "round": s.round,
        "first_player": s.first_player,
        "current_player": s.current_player,
        "scores": list(s.markers),
        "players": [
            {
                "hand": _names(s.hands[p]),
                "corruption": _names(s.piles[p]),
                "curses": s.curses[p],
                "sets": [
                    {"goods": SET_SLOTS[g], "cards": _names(t.cards), "prosperity": t.prosperity}
                    for g, t in enumerate(s.sets[p]) if t is not None
                ],
                "horizontal_sets": [{"goods": SET_SLOTS[g], "cards": _names(c)} for g, c in s.horizontal[p]],
            }
            for p in range(n)
        ],
        "nile": [KINDS[k] for k in s.nile],
        "deck": [KINDS[k] for k in s.deck],
        "tokens": _token_names(s.tokens),
        "used_tokens": _token_names(s.used_tokens),
        "discard": _names(s.discard),
        "out_of_round": _names(s.out_of_round),
        "pending": _pending_doc(s.pending),
        "over": s.over,
        "memory": [
            {"hands": [_names(h) for h in s.known_hands[v]], "piles": [_names(h) for h in s.known_piles[v]],
             "tokens": s.token_glimpse[v]}
            for v in range(n)
        ],
        "round_log": [
            {**{key: value for key, value in entry.items() if key != "horizontal"},
             "horizontal": [_names(cards) for cards in entry["horizontal"]]}
            for entry in s.round_log
        ],
        "extra_turns": s.extra_turns,
        "rng": [version, list(internal), gauss],
    }


def dump(s: GameState) -> str:
    return json.dumps(to_document(s), separators=(",", ":"))


# ---------------------------------------------------------------------- reading

fail = D.fail


def _counts(value: Any, path: str, most: int = TOTAL_CARDS) -> list[int]:
    counts = [0] * NUM_KINDS
    for i, v in enumerate(D.array(value, path, most)):
        counts[D.name(v, f"{path}[{i}]", KINDS, "card kind")] += 1
    return counts


def _kind_list(value: Any, path: str, most: int) -> list[int]:
    return [D.name(v, f"{path}[{i}]", KINDS, "card kind") for i, v in enumerate(D.array(value, path, most))]


def _tokens(value: Any, path: str) -> list[int]:
    counts = [0] * NUM_TOKEN_KINDS
    for i, v in enumerate(D.array(value, path, TOKENS_PER_ROUND)):
        counts[D.name(v, f"{path}[{i}]", TOKENS, "token kind")] += 1
    return counts


def _fitting(cards: list[int], slot: int, s: GameState, path: str) -> None:
    if slot == AMULET_SET:
        return
    for k, c in enumerate(cards):
        if c and k not in s.rules.fits[slot]:
            raise fail(path, f"card {KINDS[k]!r} does not fit a set of {GOODS[slot]}")


def _set_slot(value: Any, cards: list[int], path: str) -> int:
    """The slot of a set: its goods, or the amulets-only set (a goods named for amulets alone is forgotten)."""
    slot = D.name(value, path, SET_SLOTS, "goods")
    if cards[AMULET] == sum(cards):
        return AMULET_SET
    if slot == AMULET_SET:
        raise fail(path, "'amulet' names a set made only of amulets, and this one holds other cards")
    return slot


def load(text: str | bytes) -> GameState:
    """Parse and validate a state document; raise StateFormatError naming the first bad field."""
    return from_document(D.parse(text))


def from_document(doc: Any) -> GameState:
    """Build a state from a parsed document, validating every field."""
    doc = D.obj(doc, "document", KEYS)
    if doc.get("format") != FORMAT:
        raise fail("format", f"must be {FORMAT!r}, got {doc.get('format')!r}"[:200])
    n = D.integer(D.get(doc, "num_players", ""), "num_players", MIN_PLAYERS, MAX_PLAYERS)
    rules_doc = D.obj(doc.get("rules", {}), "rules", RULES_KEYS)
    try:
        rules = make_rules(n, **rules_doc)
    except (ValueError, TypeError) as exc:
        raise fail("rules", str(exc)) from None
    seed = D.integer(D.get(doc, "seed", ""), "seed", 0, None)  # any seed GameState.new accepts
    s = GameState(rules, seed)
    s.round = D.integer(D.get(doc, "round", ""), "round", 1, ROUNDS)
    s.first_player = D.integer(D.get(doc, "first_player", ""), "first_player", 0, n - 1)
    s.current_player = D.integer(D.get(doc, "current_player", ""), "current_player", 0, n - 1)
    scores = D.array(D.get(doc, "scores", ""), "scores", n, n)
    s.markers = [D.integer(v, f"scores[{p}]", 0, MAX_SCORE) for p, v in enumerate(scores)]
    s.over = D.boolean(doc.get("over", False), "over")
    if s.over and not s.ends_with_this_round():
        raise fail("over", f"cannot be true in round {s.round} with the best score {max(s.markers)}: the game ends "
                           f"after round {ROUNDS}, or after round {EARLY_END_ROUND} with a score over "
                           f"{EARLY_END_SCORE} (rules §9)")
    s.extra_turns = D.integer(doc.get("extra_turns", 0), "extra_turns", 0, TOKEN_COUNTS[FLOOD])

    for p, pdoc in enumerate(D.array(D.get(doc, "players", ""), "players", n, n)):
        _read_player(pdoc, p, s)
    s.nile = _kind_list(D.get(doc, "nile", ""), "nile", NILE_MAX)
    s.deck = _kind_list(D.get(doc, "deck", ""), "deck", TOTAL_CARDS)
    s.tokens = _tokens(D.get(doc, "tokens", ""), "tokens")
    s.used_tokens = _tokens(doc.get("used_tokens", []), "used_tokens")
    s.discard = _counts(doc.get("discard", []), "discard")
    s.out_of_round = _counts(doc.get("out_of_round", []), "out_of_round")
    s.pending = _read_pending(doc.get("pending"), s)
    _check_cards(s)
    _read_memory(doc.get("memory"), s)
    s.round_log = _read_round_log(doc.get("round_log", []), s)
    if "rng" in doc:
        _read_rng(doc["rng"], s)

    _check_tokens(s)
    _check_playable(s)
    from .invariants import check  # the reader's last word: everything it accepts is sound

    try:
        check(s)
    except InvariantError as exc:
        raise StateFormatError(f"document: {exc}") from None
    return s


def _read_player(pdoc: Any, p: int, s: GameState) -> None:
    path = f"players[{p}]"
    pdoc = D.obj(pdoc, path, PLAYER_KEYS)
    s.hands[p] = _counts(D.get(pdoc, "hand", path + "."), f"{path}.hand")
    s.piles[p] = _counts(pdoc.get("corruption", []), f"{path}.corruption")
    s.curses[p] = D.integer(pdoc.get("curses", 0), f"{path}.curses", 0, TOKEN_COUNTS[CURSE])
    for i, sdoc in enumerate(D.array(pdoc.get("sets", []), f"{path}.sets", len(SET_SLOTS))):
        spath = f"{path}.sets[{i}]"
        sdoc = D.obj(sdoc, spath, SET_KEYS)
        cards = _set_cards(sdoc, spath)
        slot = _set_slot(D.get(sdoc, "goods", spath + "."), cards, f"{spath}.goods")
        if s.sets[p][slot] is not None:
            which = "amulets-only set" if slot == AMULET_SET else f"set of {GOODS[slot]}"
            raise fail(f"{spath}.goods", f"a second {which} (a player has one set per goods and one of amulets)")
        _fitting(cards, slot, s, f"{spath}.cards")
        prosperity = D.integer(sdoc.get("prosperity", 0), f"{spath}.prosperity", 0, TOKEN_COUNTS[PROSPERITY])
        if prosperity and slot not in (*PROSPERITY_GOODS, AMULET_SET):
            raise fail(f"{spath}.prosperity", "Prosperity lies only on wheat, fish, cattle or amulets-only sets")
        s.sets[p][slot] = TableSet(cards, prosperity)
    seen: set[int] = set()
    for i, hdoc in enumerate(D.array(pdoc.get("horizontal_sets", []), f"{path}.horizontal_sets", len(SET_SLOTS))):
        hpath = f"{path}.horizontal_sets[{i}]"
        hdoc = D.obj(hdoc, hpath, ("goods", "cards"))
        cards = _set_cards(hdoc, hpath)
        slot = _set_slot(D.get(hdoc, "goods", hpath + "."), cards, f"{hpath}.goods")
        if slot in seen:
            raise fail(f"{hpath}.goods", "a second horizontal set of that goods (one per goods, rules §5)")
        seen.add(slot)
        _fitting(cards, slot, s, f"{hpath}.cards")
        s.horizontal[p].append((slot, cards))


def _set_cards(sdoc: dict, path: str) -> list[int]:
    cards = _counts(D.get(sdoc, "cards", path + "."), f"{path}.cards")
    if not any(cards):
        raise fail(f"{path}.cards", "a set holds at least one card")
    return cards


def _read_pending(value: Any, s: GameState) -> SobekPhase | None:
    if value is None:
        return None
    if s.over:
        raise fail("pending", "must be null once the game is over")
    doc = D.obj(value, "pending", ("phase", *{f for phase in PHASE_BY_NAME.values() for f in phase.fields}))
    phase = D.get(doc, "phase", "pending.")
    if not isinstance(phase, str) or phase not in PHASE_BY_NAME:
        raise fail("pending.phase", f"unknown phase {phase!r}; expected one of {', '.join(PHASE_BY_NAME)}"[:300])
    kind = PHASE_BY_NAME[phase]
    D.obj(doc, "pending", ("phase", *kind.fields))
    pending = kind.read(doc, s, "pending")
    fault = pending.fault(s)
    if fault is not None:
        field, problem = fault
        raise fail("pending" if field == "phase" else f"pending.{field}", problem)
    return pending


def _read_memory(value: Any, s: GameState) -> None:
    if value is None:
        return
    n = s.rules.num_players
    rows = D.array(value, "memory", n, n)
    for v, row in enumerate(rows):
        path = f"memory[{v}]"
        row = D.obj(row, path, MEMORY_KEYS)
        for key, target in (("hands", s.known_hands[v]), ("piles", s.known_piles[v])):
            lists = D.array(row.get(key, [[]] * n), f"{path}.{key}", n, n)
            for p, cards in enumerate(lists):
                counts = _counts(cards, f"{path}.{key}[{p}]")
                for k, c in enumerate(counts):
                    if c > s.rules.catalogue[k]:
                        raise fail(f"{path}.{key}[{p}]", f"lists {c} {KINDS[k]!r}; only {s.rules.catalogue[k]} exist")
                target[p] = counts
        s.token_glimpse[v] = D.boolean(row.get("tokens", False), f"{path}.tokens")


def _read_round_log(value: Any, s: GameState) -> list[dict]:
    """The summaries of the last rounds scored, in order, ending with the last one (a hand-built position
    may keep fewer, or none). A round is logged when it is scored, so the round in progress never is: its
    scoring would log it a second time."""
    n = s.rules.num_players
    log: list[dict] = []
    for i, entry in enumerate(D.array(value, "round_log", ROUNDS)):
        path = f"round_log[{i}]"
        entry = D.obj(entry, path, LOG_KEYS)
        clean: dict[str, Any] = {"round": D.integer(D.get(entry, "round", path + "."), f"{path}.round", 1, ROUNDS)}
        for key in ("points", "corruption", "curses", "most_corrupt", "penalty"):  # the order the engine writes
            default = [] if key == "most_corrupt" else [0] * n
            row = D.array(entry.get(key, default) if key == "curses" else D.get(entry, key, path + "."),
                          f"{path}.{key}", n, None if key == "most_corrupt" else n)
            high = n - 1 if key == "most_corrupt" else TOKEN_COUNTS[CURSE] if key == "curses" else MAX_SCORE
            clean[key] = [D.integer(v, f"{path}.{key}[{j}]", 0, high) for j, v in enumerate(row)]
        if len(set(clean["most_corrupt"])) != len(clean["most_corrupt"]):
            raise fail(f"{path}.most_corrupt", "lists a seat twice")
        laid = D.array(entry.get("horizontal", [[]] * n), f"{path}.horizontal", n, n)
        clean["horizontal"] = [_counts(cards, f"{path}.horizontal[{p}]") for p, cards in enumerate(laid)]
        fault = entry_fault(clean, s)
        if fault is not None:
            raise fail(f"{path}.{fault[0]}", fault[1])
        log.append(clean)
    scored = scored_rounds(s)
    if len(log) > scored:
        raise fail("round_log", f"lists {len(log)} round(s), but {scored} had been scored in round {s.round}"
                                f"{' (game over)' if s.over else ' (a round is logged once scored)'}")
    last = "the game's last" if s.over else f"the last one scored before round {s.round}"
    for i, entry in enumerate(log):
        expected = scored - len(log) + 1 + i
        if entry["round"] != expected:
            raise fail(f"round_log[{i}].round", f"must be {expected}: the log lists the rounds scored, in order, "
                                                f"ending with round {scored}, {last}")
    return log


def scored_rounds(s: GameState) -> int:
    """How many rounds have been scored: those before the round in progress, and the last one once over."""
    return s.round - 1 + s.over


def entry_fault(entry: dict, s: GameState) -> tuple[str, str] | None:
    """What in a round-log entry cannot be (the field and the problem), or None: the observation reads the
    last entry, and a corruption below 2 per Curse or beyond the cards of the game would leave its bounds."""
    cards = sum(s.rules.catalogue)
    for p, (value, curses) in enumerate(zip(entry["corruption"], entry["curses"])):
        if not CURSE_WEIGHT * curses <= value <= CURSE_WEIGHT * curses + cards:  # rules §8.2
            return (f"corruption[{p}]", f"{value} is not the cards of a pile (0 to {cards}) plus {CURSE_WEIGHT} "
                                        f"for each of the {curses} Curse(s)")
    for k, laid in enumerate(map(sum, zip(*entry["horizontal"]))):
        if laid > s.rules.catalogue[k]:
            return "horizontal", f"lists {laid} {KINDS[k]!r} card(s); the game has {s.rules.catalogue[k]}"
    return None


def _read_rng(value: Any, s: GameState) -> None:
    version, internal, gauss = D.array(value, "rng", 3, 3)
    internal = D.array(internal, "rng[1]", 1000)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in internal):
        raise fail("rng[1]", "must be a list of integers")
    if gauss is not None:
        D.number(gauss, "rng[2]")
    generator = random.Random()
    try:
        generator.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError, OverflowError) as exc:
        raise fail("rng", f"not a generator state ({exc})") from None
    s.rng = generator


def _check_cards(s: GameState) -> None:
    """The 63 cards by kind across all zones (INTERFACE.md)."""
    total = s.card_counts()
    for k, c in enumerate(total):
        if c != s.rules.catalogue[k]:
            raise fail(
                "cards", f"the zones hold {c} {KINDS[k]!r} card(s) but the game has {s.rules.catalogue[k]}"
                f" (all zones together must hold the 63 cards)",
            )


def _check_tokens(s: GameState) -> None:
    """The round's 5 tokens, each kind within the 12 of the token catalogue."""
    seen = s.token_counts()
    for t, c in enumerate(seen):
        if c > TOKEN_COUNTS[t]:
            raise fail("tokens", f"{c} {TOKENS[t]!r} tokens in play; the game has {TOKEN_COUNTS[t]}")
    # At most, not exactly: a hand-built position may list only the tokens it needs (INTERFACE's example has 3).
    if sum(seen) > TOKENS_PER_ROUND:
        raise fail("tokens", f"{sum(seen)} tokens in play; a round uses {TOKENS_PER_ROUND}")


def _check_playable(s: GameState) -> None:
    """A running game always offers the player to move a legal action."""
    if s.over:
        return
    if not s.nile and not isinstance(s.pending, ROUND_END_PHASES):
        # even inside a sub-decision: the turn's end would leave nothing to take
        raise fail("nile", "empty while the round runs (a delivery or the round's end would have come)")
    if not s.legal_actions():
        raise fail("pending", f"player {s.current_player} would have no legal action")


__all__ = ["FORMAT", "dump", "entry_fault", "from_document", "load", "scored_rounds", "to_document"]
