"""Kleopatra's actions said in the game's words, for people: what a legal action will do, as the acting seat
sees it (the terminal's menu and the web page's buttons), and what another seat sees of a move.

:func:`describe` reads only the acting seat's :func:`~.view.view` (what he may see, rules §12) and the
pending phase; :func:`seen` says a move as one seat sees it: the public events of rules §12 (cards paid,
characters played, Beggar answers as "a card", Envoy offers, where refill cards go) and nothing of the
private ones (a card discarded at the hand limit, a Vizier's keeps, a Courtesan's pick, a ceremony offer,
whose steps are not even shown: rules §14.3).
"""

from __future__ import annotations

from . import actions as A
from .catalogue import CHARACTERS, KINDS, RESOURCES, TILE_NAMES
from .phases import (
    Beggar,
    Ceremony,
    Courtesan,
    EnvoyAccept,
    EnvoyOffer,
    EnvoyResource,
    LimitDiscard,
    Quarry,
    Vizier,
)
from .state import GameState
from .view import FACE_DOWN, view

POWERS = {  # what playing each character does (rules §8)
    "beggar": "2 amulets; each opponent gives you 2 talents or a resource card",
    "courtesan": "1 amulet; take a card of your choice from the discard pile",
    "envoy": "name a resource; take the cards the opponents offer (1 amulet each, from the giver)",
    "scribe": "0 amulets; turn a High Priest die onto the altar or off it",
    "smuggler": "1 amulet; keep every card over the hand limit",
    "vizier": "draw 5 cards, keep any of them (1 amulet each), discard the rest",
}
BUILDINGS = {"sphinx": "the next sphinx", "obelisk": "the next obelisk piece", "pedestal": "the pedestal",
             "throne": "the throne", "mosaic": "a mosaic tile"}


def card(kind: int) -> str:
    """A card as people call it: ``wood``, ``wood x2 (tainted)``, ``a Trompe-l'oeil``, ``the Vizier``."""
    name = KINDS[kind]
    if kind in CHARACTERS:
        return f"the {name.title()}"
    if name == "trompe":
        return "a Trompe-l'oeil (tainted)"
    if name.endswith("2"):
        return f"{name[:-1]} x2 (tainted)"
    return name


def row(counts: list[int]) -> str:
    """Cards by kind, face-down ones counted last: ``2 stone, wood, 1 face down``."""
    parts = [f"{n} {card(k)}" if n > 1 else card(k) for k, n in enumerate(counts[:FACE_DOWN]) if n]
    if len(counts) > FACE_DOWN and counts[FACE_DOWN]:
        parts.append(f"{counts[FACE_DOWN]} face down")
    return ", ".join(parts) or "nothing"


def describe(s: GameState, action: int) -> str:
    """What ``action`` does now, for the seat that must act, in the rules' words."""
    name = A.ACTION_NAMES[action]
    prefix, _, arg = name.partition(":")
    seat, pending = s.current_player, s.pending
    if prefix == "market":
        stall = int(arg)
        cards = view(s, seat).stalls[stall]
        return f"take stall {stall} into your hand: {row(cards)}; then refill the stalls"
    if name == "quarry":
        return "visit the quarry: pay resource cards and merchants, build elements"
    if prefix == "character":
        return f"play {card(KINDS.index(arg))} ({POWERS[arg]})"
    if name == "end_turn":
        return f"end your turn (then the hand limit of {s.rules.hand_limit})"
    if prefix == "stall":
        drawn = pending.drawn[0]  # the next card to place comes first
        return f"put the next refill card ({card(drawn >> 1) if drawn & 1 else 'face down'}) on stall {arg}"
    if name == "merchant":
        return "pay with a Nile merchant (1 unit of any resource)"
    if prefix == "wall":
        return f"build wall {arg} (W{arg})"
    if prefix == "gate":
        return f"build the {arg} part of the gate"
    if name in BUILDINGS:
        return f"build {BUILDINGS[name]}"
    if prefix == "tile":
        return f"build mosaic tile {arg}" + ("" if view(s, seat).top_tile == TILE_NAMES.index(arg) else
                                             " (plays your Scribe: 2 amulets)")
    if prefix == "orient":
        return f"turn the tile to orientation {arg}"
    if prefix == "square":
        square = int(arg)
        return f"put the tile's anchor on square {square} (column {square % 8}, row {square // 8})"
    if prefix == "card":
        kind = KINDS.index(arg)
        if isinstance(pending, Quarry):
            cost = " (tainted: 1 amulet)" if kind >= KINDS.index("artisan2") else ""
            return f"pay {card(kind)} into the pool{cost}"
        if isinstance(pending, LimitDiscard):
            return f"discard {card(kind)} face down"
        if isinstance(pending, Beggar):
            return f"give {card(kind)} to player_{s.active_player} (Beggar)"
        if isinstance(pending, Courtesan):
            return f"take {card(kind)} from the discard pile"
        if isinstance(pending, EnvoyResource):
            return f"ask every opponent for {arg} cards (Envoy)"
        if isinstance(pending, Vizier):
            return f"keep {card(kind)} (1 amulet)"
        return f"choose {card(kind)}"
    if name == "done":
        if isinstance(pending, Quarry):
            return "end the quarry visit (units left in the pool are lost)"
        if isinstance(pending, Vizier):
            return "discard the cards your Vizier drew and did not keep"
        if isinstance(pending, Ceremony):
            return f"close your offer at {pending.offers[seat]} talents"
        return "finish this step"
    if name in ("yes", "no"):
        if isinstance(pending, EnvoyAccept):
            target = pending.target
            return (f"accept one more {RESOURCES[pending.resource]} card from player_{target} (1 amulet moves to "
                    f"you)" if name == "yes" else f"accept no more cards from player_{target}")
        if isinstance(pending, EnvoyOffer):
            return (f"offer one more {RESOURCES[pending.resource]} card to the Envoy" if name == "yes" else
                    "offer no more cards")
        return ("put a statue of Anubis on the new sanctuary" if name == "yes" else
                "leave the new sanctuary without a statue")
    if name == "talents":
        return f"give 2 talents to player_{s.active_player} (Beggar)"
    if prefix == "die":
        return "put a blank die on the altar" if arg == "add" else "take a die off the altar"
    if name == "limit:keep":
        limit = s.rules.hand_limit
        return f"keep all {sum(s.hands[seat])} cards (1 amulet per card over {limit})"
    if name == "limit:discard":
        return f"discard down to {s.rules.hand_limit} cards, face down (1 amulet)"
    if prefix == "bid":
        return f"raise your secret offer by {arg} (to {pending.offers[seat] + int(arg)} talents)"
    return name


def seen(s: GameState, action: int, seat: int) -> str | None:
    """Move ``action`` of the seat that must act in ``s`` as ``seat`` sees it (None: nothing to see, as a
    ceremony offer's steps). Only public events are named (rules §12)."""
    name = A.ACTION_NAMES[action]
    prefix, _, arg = name.partition(":")
    pending = s.pending
    if isinstance(pending, Ceremony):
        return "closes the offer" if name == "done" else None  # rules §14.3: the steps stay secret
    if prefix == "card" and isinstance(pending, LimitDiscard):
        return "discards a card face down (hand limit)"
    if prefix == "card" and isinstance(pending, Vizier):
        return "keeps a card the Vizier drew"
    if name == "done" and isinstance(pending, Vizier):
        return "discards the rest of the cards the Vizier drew"
    if prefix == "card" and isinstance(pending, Courtesan):
        return "takes a card from the discard pile (Courtesan)"
    if prefix == "card" and isinstance(pending, Beggar):
        return f"gives player_{s.active_player} a card (Beggar)"
    if prefix == "market":
        cards = view(s, seat).stalls[int(arg)]  # what this seat sees of the stall, face-down cards counted
        return f"takes stall {arg}: {row(cards)}"
    if prefix == "stall":
        drawn = pending.drawn[0]
        return f"puts {card(drawn >> 1) if drawn & 1 else 'a face-down card'} on stall {arg}"
    if prefix == "tile":
        return f"builds mosaic tile {arg}"
    said = describe(s, action)
    for mine, theirs in (("your ", "his "), (" you", " him")):
        said = said.replace(mine, theirs)
    verb, _, rest = said.partition(" ")
    third = {"take": "takes", "visit": "visits", "play": "plays", "end": "ends", "put": "puts", "pay": "pays",
             "build": "builds", "turn": "turns", "give": "gives", "ask": "asks", "accept": "accepts",
             "offer": "offers", "leave": "leaves", "keep": "keeps", "discard": "discards", "raise": "raises",
             "close": "closes", "finish": "finishes", "choose": "chooses"}
    return f"{third[verb]} {rest}" if verb in third else said

