"""Kleopatra's actions said in the game's words, for people: what a legal action will do, as the acting seat
sees it (the terminal's menu and the web page's buttons), and what another seat sees of a move.

:func:`describe` reads only the acting seat's :func:`~.view.view` (what he may see, rules §12) and the
pending phase; :func:`seen` says a move as one seat sees it: the public events of rules §12 (cards paid,
characters played, Beggar answers as "a card", Envoy offers, where refill cards go) and nothing of the
private ones (a card discarded at the hand limit, a Vizier's keeps, a Courtesan's pick, a ceremony offer,
whose steps are not even shown: rules §14.3).
"""

from __future__ import annotations

from collections.abc import Callable

from ..words import action_parts, phase_words, third_person
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

# What each kind of action does, by the part of its name before the colon (rules §14.1).
HELP = {
    "market": "take the cards of that market stall",
    "quarry": "start a quarry visit (pay resources, build)",
    "character": "play that character",
    "end_turn": "end your turn",
    "stall": "put the next refill card on that stall",
    "merchant": "pay with a Nile merchant",
    "wall": "build a wall in that slot",
    "gate": "build that side of the gate",
    "sphinx": "build the next sphinx",
    "obelisk": "build the next obelisk piece",
    "pedestal": "build the pedestal",
    "throne": "build the throne (after the pedestal)",
    "mosaic": "build a mosaic tile",
    "tile": "take that mosaic tile",
    "orient": "turn the tile to that orientation",
    "square": "put the tile's anchor on that square (row y = square // 8, column x = square % 8)",
    "card": "choose a card of that kind",
    "done": "finish the current step",
    "yes": "yes",
    "no": "no",
    "talents": "give 2 talents to the Beggar",
    "die": "add a die to the altar / remove one",
    "limit": "keep your hand (over the limit: corruption) or discard down to 10",
    "bid": "raise your offer by that many",
}
POWERS = {  # what playing each character does (rules §8)
    "beggar": "2 amulets; each opponent gives you 2 talents or a resource card",
    "courtesan": "1 amulet; take a card of your choice from the discard pile",
    "envoy": "name a resource; take the cards the opponents offer (1 amulet each, from the giver)",
    "scribe": "0 amulets; turn a High Priest die onto the altar or off it",
    "smuggler": "1 amulet; keep every card over the hand limit",
    "vizier": "draw 5 cards, keep any of them (1 amulet each), discard the rest",
}
SAID = {  # the actions whose words never change
    "quarry": "visit the quarry: pay resource cards and merchants, build elements",
    "merchant": "pay with a Nile merchant (1 unit of any resource)",
    "die:add": "put a blank die on the altar",
    "die:remove": "take a die off the altar",
}
SAID_OF = {  # the words of the actions named by a prefix and an argument
    "wall": "build wall {0} (W{0})",
    "gate": "build the {0} part of the gate",
    "orient": "turn the tile to orientation {0}",
}
SAID_NOW: dict[str, Callable[[GameState, int], str]] = {  # the words that read the table (acting seat second)
    "end_turn": lambda s, seat: f"end your turn (then the hand limit of {s.rules.hand_limit})",
    "talents": lambda s, seat: f"give 2 talents to player_{s.active_player} (Beggar)",
    "limit:keep": lambda s, seat: f"keep all {sum(s.hands[seat])} cards (1 amulet per card over "
                                  f"{s.rules.hand_limit})",
    "limit:discard": lambda s, seat: f"discard down to {s.rules.hand_limit} cards, face down (1 amulet)",
}
# The moves others see only as done, not what was chosen (rules §12), by the pending phase
PRIVATE_CARD = {
    LimitDiscard: "discards a card face down (hand limit)",
    Vizier: "keeps a card the Vizier drew",
    Courtesan: "takes a card from the discard pile (Courtesan)",
    Beggar: "gives player_{active} a card (Beggar)",
}
PRIVATE_DONE = {Vizier: "discards the rest of the cards the Vizier drew"}
PRONOUNS = (("your ", "his "), (" you", " him"))  # describe's words said of the seat that acts
VERBS = {"take": "takes", "visit": "visits", "play": "plays", "end": "ends", "put": "puts", "pay": "pays",
         "build": "builds", "turn": "turns", "give": "gives", "ask": "asks", "accept": "accepts",
         "offer": "offers", "leave": "leaves", "keep": "keeps", "discard": "discards", "raise": "raises",
         "close": "closes", "finish": "finishes", "choose": "chooses"}
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
    name, prefix, arg = action_parts(A.ACTION_NAMES, action)
    seat, pending = s.current_player, s.pending
    if name in SAID:
        return SAID[name]
    if prefix in SAID_OF:
        return SAID_OF[prefix].format(arg)
    if name in SAID_NOW:
        return SAID_NOW[name](s, seat)
    if prefix == "market":
        stall = int(arg)
        return f"take stall {stall} into your hand: {row(view(s, seat).stalls[stall])}; then refill the stalls"
    if prefix == "character":
        return f"play {card(KINDS.index(arg))} ({POWERS[arg]})"
    if prefix == "stall":
        drawn = pending.drawn[0]  # the next card to place comes first
        return f"put the next refill card ({card(drawn >> 1) if drawn & 1 else 'face down'}) on stall {arg}"
    if name in BUILDINGS:
        return f"build {BUILDINGS[name]}"
    if prefix == "tile":
        return f"build mosaic tile {arg}" + ("" if view(s, seat).top_tile == TILE_NAMES.index(arg) else
                                             " (plays your Scribe: 2 amulets)")
    if prefix == "square":
        square = int(arg)
        return f"put the tile's anchor on square {square} (column {square % 8}, row {square // 8})"
    if prefix == "card":
        kind = KINDS.index(arg)
        said = card(kind)
        return phase_words(pending, {
            Quarry: f"pay {said} into the pool{' (tainted: 1 amulet)' if kind >= KINDS.index('artisan2') else ''}",
            LimitDiscard: f"discard {said} face down",
            Beggar: f"give {said} to player_{s.active_player} (Beggar)",
            Courtesan: f"take {said} from the discard pile",
            EnvoyResource: f"ask every opponent for {arg} cards (Envoy)",
            Vizier: f"keep {said} (1 amulet)",
        }, f"choose {said}")
    if name == "done":
        return phase_words(pending, {
            Quarry: "end the quarry visit (units left in the pool are lost)",
            Vizier: "discard the cards your Vizier drew and did not keep",
            Ceremony: lambda ceremony: f"close your offer at {ceremony.offers[seat]} talents",
        }, "finish this step")
    if name in ("yes", "no"):
        statue = "put a statue of Anubis on the new sanctuary" if name == "yes" else \
            "leave the new sanctuary without a statue"
        return phase_words(pending, {
            EnvoyAccept: lambda envoy: (f"accept one more {RESOURCES[envoy.resource]} card from player_{envoy.target} "
                                        f"(1 amulet moves to you)" if name == "yes" else
                                        f"accept no more cards from player_{envoy.target}"),
            EnvoyOffer: lambda envoy: (f"offer one more {RESOURCES[envoy.resource]} card to the Envoy"
                                       if name == "yes" else "offer no more cards"),
        }, statue)
    if prefix == "bid":
        return f"raise your secret offer by {arg} (to {pending.offers[seat] + int(arg)} talents)"
    return name


def seen(s: GameState, action: int, seat: int) -> str | None:
    """Move ``action`` of the seat that must act in ``s`` as ``seat`` sees it (None: nothing to see, as a
    ceremony offer's steps). Only public events are named (rules §12)."""
    name, prefix, arg = action_parts(A.ACTION_NAMES, action)
    pending = s.pending
    if isinstance(pending, Ceremony):
        return "closes the offer" if name == "done" else None  # rules §14.3: the steps stay secret
    if prefix == "card" or name == "done":
        hidden = phase_words(pending, PRIVATE_CARD if prefix == "card" else PRIVATE_DONE, "")
        if hidden:
            return hidden.format(active=s.active_player)
    if prefix == "market":
        cards = view(s, seat).stalls[int(arg)]  # what this seat sees of the stall, face-down cards counted
        return f"takes stall {arg}: {row(cards)}"
    if prefix == "stall":
        drawn = pending.drawn[0]
        return f"puts {card(drawn >> 1) if drawn & 1 else 'a face-down card'} on stall {arg}"
    if prefix == "tile":
        return f"builds mosaic tile {arg}"
    return third_person(describe(s, action), PRONOUNS, VERBS)
