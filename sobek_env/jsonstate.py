"""The ``sobek-state/1`` JSON document (INTERFACE.md): writing it, and reading it strictly.

Reading checks types, ranges, known kinds, the 63 cards across all zones and
the round's tokens, and that the player to move has a legal action. Every
failure is a StateFormatError whose message starts with the offending field.

Required fields: format, num_players, seed, round, first_player,
current_player, scores, players (each with a hand), nile, deck, tokens. The
others may be left out when empty: rules ({}), a player's corruption ([]),
curses (0), sets ([]) and horizontal_sets ([]); used_tokens, discard and
out_of_round ([]); pending (null); over (false); memory (nothing seen);
round_log ([]); rng (a fresh generator from seed). A field that is present is
checked in full.

``pending`` has a ``phase`` (a key of ``phases.HANDLERS``) and, by phase:
set and courtesan_card: ``goods`` and ``cards`` (laid so far; for the
Courtesan they are already on the set); guild: ``hieroglyph``; vizier_card and
thief_back: ``target`` (a seat); scribe: ``actor`` (the Scribe's player) and
``queue`` (seats still to discard after the current player).
"""

from __future__ import annotations

import json
import random
from typing import Any

from .catalogue import (
    COURTESAN_MAX_CARDS,
    CURSE,
    GOODS,
    HIEROGLYPHS,
    KIND_INDEX,
    KINDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    PROSPERITY_GOODS,
    ROUNDS,
    SCRIBE_HAND_LIMIT,
    SET_MIN_CARDS,
    TOKEN_COUNTS,
    TOKEN_INDEX,
    TOKENS,
    TOKENS_PER_ROUND,
    make_rules,
)
from .errors import StateFormatError
from .phases import HANDLERS, Pending
from .scoring import TableSet
from .state import GameState

FORMAT = "sobek-state/1"
MAX_SCORE = 10_000  # far above any reachable score; guards against nonsense numbers
NILE_MAX = 9


def _names(counts: list[int]) -> list[str]:
    return [KINDS[k] for k, c in enumerate(counts) for _ in range(c)]


def _token_names(counts: list[int]) -> list[str]:
    return [TOKENS[t] for t, c in enumerate(counts) for _ in range(c)]


def _pending_doc(pend: Pending | None) -> dict | None:
    if pend is None:
        return None
    doc: dict[str, Any] = {"phase": pend.phase}
    if pend.phase in ("set", "courtesan_card"):
        doc["goods"] = GOODS[pend.goods]
        doc["cards"] = _names(pend.cards)
    elif pend.phase == "guild":
        doc["hieroglyph"] = HIEROGLYPHS[pend.symbol]
    elif pend.phase in ("vizier_card", "thief_back"):
        doc["target"] = pend.target
    elif pend.phase == "scribe":
        doc["actor"] = pend.actor
        doc["queue"] = list(pend.queue)
    return doc


def to_document(s: GameState) -> dict:
    """The state as a JSON-ready dict."""
    version, internal, gauss = s.rng.getstate()
    return {
        "format": FORMAT,
        "num_players": s.rules.num_players,
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
                    {"goods": GOODS[g], "cards": _names(t.cards), "prosperity": t.prosperity}
                    for g, t in enumerate(s.sets[p]) if t is not None
                ],
                "horizontal_sets": [{"goods": GOODS[g], "cards": _names(c)} for g, c in s.horizontal[p]],
            }
            for p in range(s.rules.num_players)
        ],
        "nile": [KINDS[k] for k in s.nile],
        "deck": [KINDS[k] for k in s.deck],
        "tokens": _token_names(s.tokens),
        "used_tokens": _token_names(s.used_tokens),
        "discard": _names(s.discard),
        "out_of_round": _names(s.out_of_round),
        "pending": _pending_doc(s.pending),
        "over": s.over,
        "memory": {
            "hands": [_names(h) for h in s.known_hands],
            "piles": [_names(h) for h in s.known_piles],
        },
        "round_log": s.round_log,
        "rng": [version, list(internal), gauss],
    }


def dump(s: GameState) -> str:
    return json.dumps(to_document(s), separators=(",", ":"))


# ---------------------------------------------------------------------- reading


def _fail(path: str, problem: str) -> StateFormatError:
    return StateFormatError(f"{path}: {problem}")


def _get(doc: dict, key: str, path: str) -> Any:
    if key not in doc:
        raise _fail(f"{path}{key}", "missing")
    return doc[key]


def _int(value: Any, path: str, low: int, high: int | None) -> int:
    """An integer from ``low`` to ``high`` (no upper limit if ``high`` is None)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(path, f"must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        allowed = f"{low} or more" if high is None else f"from {low} to {high}"
        raise _fail(path, f"must be {allowed}, got {value}")
    return value


def _list(value: Any, path: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        raise _fail(path, f"must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise _fail(path, f"must have {length} entries, got {len(value)}")
    return value


def _dict(value: Any, path: str) -> dict:
    if not isinstance(value, dict):
        raise _fail(path, f"must be an object, got {type(value).__name__}")
    return value


def _kind(value: Any, path: str) -> int:
    if not isinstance(value, str) or value not in KIND_INDEX:
        raise _fail(path, f"unknown card kind {value!r}")
    return KIND_INDEX[value]


def _kind_list(value: Any, path: str) -> list[int]:
    return [_kind(v, f"{path}[{i}]") for i, v in enumerate(_list(value, path))]


def _counts(value: Any, path: str) -> list[int]:
    counts = [0] * NUM_KINDS
    for k in _kind_list(value, path):
        counts[k] += 1
    return counts


def _tokens(value: Any, path: str) -> list[int]:
    counts = [0] * NUM_TOKEN_KINDS
    for i, v in enumerate(_list(value, path)):
        if not isinstance(v, str) or v not in TOKEN_INDEX:
            raise _fail(f"{path}[{i}]", f"unknown token kind {v!r}")
        counts[TOKEN_INDEX[v]] += 1
    return counts


def _goods(value: Any, path: str) -> int:
    if not isinstance(value, str) or value not in GOODS:
        raise _fail(path, f"unknown goods {value!r}; expected one of {', '.join(GOODS)}")
    return GOODS.index(value)


def _fitting(cards: list[int], goods: int, s: GameState, path: str) -> None:
    for k, c in enumerate(cards):
        if c and k not in s.rules.fits[goods]:
            raise _fail(path, f"card {KINDS[k]!r} does not fit a set of {GOODS[goods]}")


def load(text: str | bytes) -> GameState:
    """Parse and validate a state document; raise StateFormatError naming the first bad field."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise StateFormatError(f"document: expected JSON text, got {type(text).__name__}")
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and bad encodings are ValueErrors
        raise StateFormatError(f"document: not valid JSON ({exc})") from None
    return from_document(doc)


def from_document(doc: Any) -> GameState:
    """Build a state from a parsed document, validating every field."""
    doc = _dict(doc, "document")
    if doc.get("format") != FORMAT:
        raise _fail("format", f"must be {FORMAT!r}, got {doc.get('format')!r}")
    n = _int(_get(doc, "num_players", ""), "num_players", MIN_PLAYERS, MAX_PLAYERS)
    rules_doc = _dict(doc.get("rules", {}), "rules")
    unknown = set(rules_doc) - {"scarabs", "green_cards", "families"}
    if unknown:
        raise _fail("rules", f"unknown option(s) {', '.join(sorted(map(str, unknown)))}")
    try:
        rules = make_rules(n, **rules_doc)
    except ValueError as exc:
        raise _fail("rules", str(exc)) from None
    seed = _int(_get(doc, "seed", ""), "seed", 0, None)  # any seed GameState.new accepts
    s = GameState(rules, seed)
    s.round = _int(_get(doc, "round", ""), "round", 1, ROUNDS)
    s.first_player = _int(_get(doc, "first_player", ""), "first_player", 0, n - 1)
    s.current_player = _int(_get(doc, "current_player", ""), "current_player", 0, n - 1)
    scores = _list(_get(doc, "scores", ""), "scores", n)
    s.markers = [_int(v, f"scores[{p}]", 0, MAX_SCORE) for p, v in enumerate(scores)]
    over = doc.get("over", False)
    if not isinstance(over, bool):
        raise _fail("over", f"must be true or false, got {over!r}")
    s.over = over

    players = _list(_get(doc, "players", ""), "players", n)
    for p, pdoc in enumerate(players):
        path = f"players[{p}]"
        pdoc = _dict(pdoc, path)
        s.hands[p] = _counts(_get(pdoc, "hand", path + "."), f"{path}.hand")
        s.piles[p] = _counts(pdoc.get("corruption", []), f"{path}.corruption")
        s.curses[p] = _int(pdoc.get("curses", 0), f"{path}.curses", 0, TOKEN_COUNTS[CURSE])
        for i, sdoc in enumerate(_list(pdoc.get("sets", []), f"{path}.sets")):
            spath = f"{path}.sets[{i}]"
            sdoc = _dict(sdoc, spath)
            g = _goods(_get(sdoc, "goods", spath + "."), f"{spath}.goods")
            if s.sets[p][g] is not None:
                raise _fail(f"{spath}.goods", f"a second set of {GOODS[g]} (a player has one set per goods)")
            cards = _counts(_get(sdoc, "cards", spath + "."), f"{spath}.cards")
            _fitting(cards, g, s, f"{spath}.cards")
            prosperity = _int(sdoc.get("prosperity", 0), f"{spath}.prosperity", 0, TOKEN_COUNTS[PROSPERITY])
            if prosperity and g not in PROSPERITY_GOODS:
                raise _fail(f"{spath}.prosperity", "Prosperity lies only on wheat, fish or cattle sets")
            s.sets[p][g] = TableSet(cards, prosperity)
        for i, hdoc in enumerate(_list(pdoc.get("horizontal_sets", []), f"{path}.horizontal_sets")):
            hpath = f"{path}.horizontal_sets[{i}]"
            hdoc = _dict(hdoc, hpath)
            g = _goods(_get(hdoc, "goods", hpath + "."), f"{hpath}.goods")
            cards = _counts(_get(hdoc, "cards", hpath + "."), f"{hpath}.cards")
            _fitting(cards, g, s, f"{hpath}.cards")
            s.horizontal[p].append((g, cards))

    s.nile = _kind_list(_get(doc, "nile", ""), "nile")
    if len(s.nile) > NILE_MAX:
        raise _fail("nile", f"holds {len(s.nile)} cards; it has {NILE_MAX} positions")
    s.deck = _kind_list(_get(doc, "deck", ""), "deck")
    s.tokens = _tokens(_get(doc, "tokens", ""), "tokens")
    s.used_tokens = _tokens(doc.get("used_tokens", []), "used_tokens")
    s.discard = _counts(doc.get("discard", []), "discard")
    s.out_of_round = _counts(doc.get("out_of_round", []), "out_of_round")
    s.pending = _read_pending(doc.get("pending"), s)
    _read_memory(doc.get("memory"), s)
    s.round_log = _read_round_log(doc.get("round_log", []), n)
    if "rng" in doc:
        _read_rng(doc["rng"], s)

    _check_cards(s)
    _check_tokens(s)
    _check_playable(s)
    return s


def _read_pending(value: Any, s: GameState) -> Pending | None:
    if value is None:
        return None
    n = s.rules.num_players
    doc = _dict(value, "pending")
    phase = _get(doc, "phase", "pending.")
    if not isinstance(phase, str) or phase not in HANDLERS:
        raise _fail("pending.phase", f"unknown phase {phase!r}; expected one of {', '.join(HANDLERS)}")
    pend = Pending(phase)
    me = s.current_player
    if phase in ("set", "courtesan_card"):
        pend.goods = _goods(_get(doc, "goods", "pending."), "pending.goods")
        pend.cards = _counts(doc.get("cards", []), "pending.cards")
        _fitting(pend.cards, pend.goods, s, "pending.cards")
        if phase == "set" and sum(pend.cards) + s.fitting_in_hand(me, pend.goods) < SET_MIN_CARDS:
            raise _fail("pending.cards", "the set can never reach 3 cards with the cards in hand")
        if phase == "courtesan_card":
            if s.sets[me][pend.goods] is None:
                raise _fail("pending.goods", f"player {me} has no set of {GOODS[pend.goods]}")
            if sum(pend.cards) >= COURTESAN_MAX_CARDS:
                raise _fail("pending.cards", "the Courtesan adds at most 2 cards; her power would have ended")
    elif phase == "guild":
        symbol = _get(doc, "hieroglyph", "pending.")
        if symbol not in HIEROGLYPHS:
            raise _fail("pending.hieroglyph", f"unknown hieroglyph {symbol!r}")
        pend.symbol = HIEROGLYPHS.index(symbol)
    elif phase in ("vizier_card", "thief_back"):
        pend.target = _int(_get(doc, "target", "pending."), "pending.target", 0, n - 1)
        if pend.target == me:
            raise _fail("pending.target", "must be an opponent of the current player")
    elif phase == "scribe":
        pend.actor = _int(_get(doc, "actor", "pending."), "pending.actor", 0, n - 1)
        queue = _list(doc.get("queue", []), "pending.queue")
        pend.queue = [_int(v, f"pending.queue[{i}]", 0, n - 1) for i, v in enumerate(queue)]
        seats = [me, *pend.queue]
        if pend.actor in seats or len(set(seats)) != len(seats):
            raise _fail("pending", "the Scribe's discards are by distinct opponents of the actor")
        for seat in seats:
            if sum(s.hands[seat]) <= SCRIBE_HAND_LIMIT:
                raise _fail("pending.queue", f"player {seat} holds {SCRIBE_HAND_LIMIT} cards or fewer")
    elif phase == "first_player" and s.first_player != me:
        raise _fail("first_player", "must equal current_player while the first-player choice is pending")
    if s.over:
        raise _fail("pending", "must be null once the game is over")
    return pend


def _read_memory(value: Any, s: GameState) -> None:
    if value is None:
        return
    n = s.rules.num_players
    doc = _dict(value, "memory")
    for key, target in (("hands", s.known_hands), ("piles", s.known_piles)):
        rows = _list(doc.get(key, [[]] * n), f"memory.{key}", n)
        for p, row in enumerate(rows):
            counts = _counts(row, f"memory.{key}[{p}]")
            for k, c in enumerate(counts):
                if c > s.rules.catalogue[k]:
                    raise _fail(f"memory.{key}[{p}]", f"lists {c} {KINDS[k]!r}; only {s.rules.catalogue[k]} exist")
            target[p] = counts


def _read_round_log(value: Any, n: int) -> list[dict]:
    log = []
    for i, entry in enumerate(_list(value, "round_log")):
        path = f"round_log[{i}]"
        entry = _dict(entry, path)
        clean: dict[str, Any] = {"round": _int(_get(entry, "round", path + "."), f"{path}.round", 1, ROUNDS)}
        for key in ("points", "corruption", "most_corrupt", "penalty"):  # the order the engine writes
            row = _list(_get(entry, key, path + "."), f"{path}.{key}", None if key == "most_corrupt" else n)
            high = n - 1 if key == "most_corrupt" else MAX_SCORE
            clean[key] = [_int(v, f"{path}.{key}[{j}]", 0, high) for j, v in enumerate(row)]
        log.append(clean)
    return log


def _read_rng(value: Any, s: GameState) -> None:
    parts = _list(value, "rng", 3)
    version, internal, gauss = parts
    internal = _list(internal, "rng[1]")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in internal):
        raise _fail("rng[1]", "must be a list of integers")
    if gauss is not None and not isinstance(gauss, float):
        raise _fail("rng[2]", "must be null or a number")
    generator = random.Random()
    try:
        generator.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError, OverflowError) as exc:
        raise _fail("rng", f"not a generator state ({exc})") from None
    s.rng = generator


def _check_cards(s: GameState) -> None:
    """The 63 cards by kind across all zones (INTERFACE.md)."""
    total = s.card_counts()
    for k, c in enumerate(total):
        if c != s.rules.catalogue[k]:
            raise _fail(
                "cards", f"the zones hold {c} {KINDS[k]!r} card(s) but the game has {s.rules.catalogue[k]}"
                f" (all zones together must hold the 63 cards)",
            )


def _check_tokens(s: GameState) -> None:
    """The round's 5 tokens, each kind within the 12 of the token catalogue."""
    seen = s.token_counts()
    for t, c in enumerate(seen):
        if c > TOKEN_COUNTS[t]:
            raise _fail("tokens", f"{c} {TOKENS[t]!r} tokens in play; the game has {TOKEN_COUNTS[t]}")
    # At most, not exactly: a hand-built position may list only the tokens it needs (INTERFACE's example has 3).
    if sum(seen) > TOKENS_PER_ROUND:
        raise _fail("tokens", f"{sum(seen)} tokens in play; a round uses {TOKENS_PER_ROUND}")


def _check_playable(s: GameState) -> None:
    """A running game always offers the player to move a legal action."""
    if s.over:
        return
    if not s.nile:  # even inside a sub-decision: the turn's end would leave nothing to take
        raise _fail("nile", "empty while the round runs (a delivery or the round's end would have come)")
    if not s.legal_actions():
        raise _fail("pending", f"player {s.current_player} would have no legal action")
