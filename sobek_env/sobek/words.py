"""Sobek's actions said in the game's words, for people: what a legal action will do, as the acting seat
sees it (the terminal's menu and the web page's buttons), and what another seat sees of a move.

:func:`describe` reads the state only where the acting seat may look (the Nile's face-up cards, his
hand, his pile, the pile his Vizier searches); :func:`seen` says a move as one seat sees it, naming
only what is public (rules §10): a card taken face up or laid on the table, a character played, a token
chosen. A card moving face down (a Scribe's discard, the Vizier's pick, a character taken from the Nile)
is said without its face.
"""

from __future__ import annotations

from . import actions as A
from .catalogue import (
    AMULET,
    AMULET_SET,
    CHARACTERS,
    FACE_UP_ON_NILE,
    FIRST_CHARACTER,
    GOODS,
    HIEROGLYPHS,
    KINDS,
    PROSPERITY_GOODS,
    SET_SLOTS,
    TOKENS,
)
from .phases import (
    BuildSet,
    CourtesanCard,
    CourtesanSet,
    FirstPlayer,
    Guild,
    Horizontal,
    HorizontalSet,
    Merchant,
    Priest,
    PriestCharacters,
    Prosperity,
    Scribe,
    Thief,
    ThiefBack,
    Vizier,
    VizierCard,
)
from .state import GameState

POWERS = {  # what playing each character does (rules §4)
    "queen": "draw 3 cards from the deck",
    "vizier": "search an opponent's corruption pile and take a card of it",
    "merchant": "take any Nile card, with no corruption",
    "high-priest": "discard a goods of your choice from your corruption pile",
    "high-priestess": "discard a goods of your choice from your corruption pile",
    "thief": "steal a card, by its back, from an opponent's hand",
    "scribe-fish": "every opponent with more than 6 cards puts cards into his corruption pile down to 6",
    "scribe-wheat": "every opponent with more than 6 cards puts cards into his corruption pile down to 6",
    "courtesan": "add 1 or 2 cards from your hand to one of your sets",
}
EFFECTS = {  # what each event token does (rules §7)
    "guild": "move to the next {symbol} space; an opponent moves back to the previous one",
    "flood": "play another turn after this one",
    "curse": "an opponent counts 2 more corruption at the round's scoring",
    "prosperity": "2 more scarabs on your wheat, fish, cattle or amulets-only set",
    "embalming": "all the cards of your corruption pile come back to your hand",
    "deceit": "score a point per card in your corruption pile",
}


def card(kind: int) -> str:
    """A card as people call it: ``fish (1 scarab)``, ``ivory start card``, ``amulet``, ``the Vizier``."""
    name = KINDS[kind]
    if kind >= FIRST_CHARACTER:
        return f"the {name.replace('-', ' ').title().replace('Fish', '(fish)').replace('Wheat', '(wheat)')}"
    if kind == AMULET:
        return "an amulet"
    goods, _, sort = name.partition("-")
    return {"plain": f"{goods} (plain)", "scarab": f"{goods} (scarabs)", "start": f"{goods} (start card)"}[sort]


def cards(kinds: list[int]) -> str:
    """Several cards by kind, in the Nile's order: ``fish (plain), the Vizier``."""
    return ", ".join(card(k) for k in kinds)


def nile_card(kind: int) -> str:
    """A Nile card as everybody sees it: characters lie face down (rules §5)."""
    return card(kind) if FACE_UP_ON_NILE[kind] else "a face-down character"


def set_name(slot: int) -> str:
    return "amulets-only set" if slot == AMULET_SET else f"{SET_SLOTS[slot]} set"


def token(index: int) -> str:
    name = TOKENS[index]
    kind, _, symbol = name.partition("-")
    what = EFFECTS[kind].format(symbol=symbol)
    return f"the {kind} token{f' of the {symbol}' if symbol else ''} ({what})"


def describe(s: GameState, action: int) -> str:
    """What ``action`` does now, for the player to move, in the rules' words."""
    name = A.ACTION_NAMES[action]
    prefix, _, arg = name.partition(":")
    p, pending = s.current_player, s.pending
    if prefix == "take":
        position = int(arg)
        taken = nile_card(s.nile[position])
        if isinstance(pending, Merchant):
            return f"take {taken} from Nile position {position}, with no corruption (Merchant)"
        skipped = s.nile[:position]
        corrupt = f"; {_skipped(skipped)} to your corruption pile" if skipped else \
            "; nothing goes to your corruption pile"
        return f"take {taken} from Nile position {position}{corrupt}"
    if prefix == "character":
        return f"play {card(FIRST_CHARACTER + CHARACTERS.index(arg))}: {POWERS[arg]}"
    if prefix == "set":
        goods = GOODS.index(arg)
        if isinstance(pending, Horizontal):
            return f"lay a horizontal set of {arg} from your hand (it scores its scarabs)"
        own = s.sets[p]
        if own[goods] is not None:
            return f"extend your {arg} set with 3 or more fitting cards"
        amulets = own[AMULET_SET]
        if amulets is not None and (amulets.prosperity == 0 or goods in PROSPERITY_GOODS):  # rules §6
            return f"extend your amulets-only set with 3 or more {arg} cards (it becomes your {arg} set)"
        return f"lay a new set of {arg}: 3 or more fitting cards"
    if prefix == "card":
        kind = KINDS.index(arg)
        if isinstance(pending, (BuildSet, HorizontalSet)):
            return f"add {card(kind)} to the {GOODS[pending.goods]} set being laid (its card {sum(pending.cards) + 1})"
        if isinstance(pending, CourtesanCard):
            return f"add {card(kind)} from your hand to your {set_name(pending.slot)}"
        if isinstance(pending, VizierCard):
            return f"take {card(kind)} from player_{pending.target}'s corruption pile into your hand"
        if isinstance(pending, Scribe):
            return f"put {card(kind)} from your hand into your corruption pile (Scribe: down to 6 cards)"
        if isinstance(pending, PriestCharacters):
            return f"discard {card(kind)} from your corruption pile"
        return f"choose {card(kind)}"
    if name == "done":
        if isinstance(pending, (BuildSet, HorizontalSet)):
            return f"finish the {GOODS[pending.goods]} set with its {sum(pending.cards)} cards"
        if isinstance(pending, Horizontal):
            return "lay no more horizontal sets (the cards left in your hand go to your corruption pile)"
        if isinstance(pending, CourtesanCard):
            return "add no second card"
        if isinstance(pending, PriestCharacters):
            return "keep the characters left in your corruption pile"
        return "finish this step"
    if prefix == "token":
        return f"take {token(TOKENS.index(arg))}"
    if prefix == "player":
        target = s.seat_at(int(arg))
        who = "yourself" if target == p else f"player_{target}"
        if isinstance(pending, FirstPlayer):
            return f"choose {who} to play first this round"
        if isinstance(pending, Guild):
            return f"move player_{target} back to the previous {HIEROGLYPHS[pending.symbol]} space"
        if isinstance(pending, Vizier):
            return f"search player_{target}'s corruption pile and take a card of it"
        if isinstance(pending, Thief):
            return f"steal a card from player_{target}'s hand"
        return f"give the Curse to player_{target} (2 more corruption at the scoring)"
    if prefix == "goods":
        slot = A.ACTION_SLOT[action]
        if isinstance(pending, Priest):
            return f"discard every {arg} card of your corruption pile (amulets stay)"
        if isinstance(pending, CourtesanSet):
            return f"add 1 or 2 cards from your hand to your {set_name(slot)}"
        if isinstance(pending, Prosperity):
            return f"put Prosperity on your {set_name(slot)}: 2 more scarabs on each of its cards' count"
        return f"choose your {set_name(slot)}"
    if prefix == "back":
        target = pending.target if isinstance(pending, ThiefBack) else None
        whose = f"player_{target}'s" if target is not None else "the"
        return f"steal a random {arg}-backed card from {whose} hand"
    return name


def seen(s: GameState, action: int, seat: int) -> str | None:
    """Move ``action`` of the player to move in ``s`` as ``seat`` sees it (None: nothing to see). Only
    what is public is named, so two moves that leave ``seat`` the same table read the same."""
    name = A.ACTION_NAMES[action]
    prefix, _, arg = name.partition(":")
    pending = s.pending
    if prefix == "take":
        position = int(arg)
        taken = nile_card(s.nile[position])
        if isinstance(pending, Merchant):
            return f"takes {taken} from Nile position {position} (Merchant)"
        skipped = s.nile[:position]
        corrupt = f"; {_skipped(skipped)} to the corruption pile" if skipped else ""
        return f"takes {taken} from Nile position {position}{corrupt}"
    if prefix == "card" and isinstance(pending, Scribe):
        return "puts a card from the hand into the corruption pile (Scribe)"
    if prefix == "card" and isinstance(pending, VizierCard):
        return f"takes a card from player_{pending.target}'s corruption pile (Vizier)"
    if prefix == "back":
        return f"steals a random {arg}-backed card from player_{pending.target}'s hand (Thief)"
    if prefix == "goods" and isinstance(pending, Priest):  # a goods with nothing to discard shows nothing
        return "discards a goods of his choice from his corruption pile (what goes shows on the discard pile)"
    said = describe(s, action)
    # the rest is public (rules §10): characters, sets, tokens, targets; said in the third person
    for mine, theirs in (("your ", "his "), ("yourself", "himself"), ("you ", "he ")):
        said = said.replace(mine, theirs)
    verb, _, rest = said.partition(" ")
    third = {"lay": "lays", "play": "plays", "extend": "extends", "add": "adds", "take": "takes", "put": "puts",
             "discard": "discards", "finish": "finishes", "keep": "keeps", "move": "moves", "search": "searches",
             "steal": "steals", "give": "gives", "choose": "chooses"}
    if verb in third:
        return f"{third[verb]} {rest}"
    return said


def _skipped(kinds: list[int]) -> str:
    """The Nile cards passed over by a take, and their verb: "ivory (scarabs) goes", "fish, wheat go"."""
    return f"{', '.join(nile_card(k) for k in kinds)} {'goes' if len(kinds) == 1 else 'go'}"
