"""Sobek's actions said in the game's words, for people: what a legal action will do, as the acting seat
sees it (the terminal's menu and the web page's buttons), and what another seat sees of a move.

:func:`describe` reads the state only where the acting seat may look (the Nile's face-up cards, his
hand, his pile, the pile his Vizier searches); :func:`seen` says a move as one seat sees it, naming
only what is public (rules §10): a card taken face up or laid on the table, a character played, a token
chosen. A card moving face down (a Scribe's discard, the Vizier's pick, a character taken from the Nile)
is said without its face.
"""

from __future__ import annotations

from ..words import action_parts, phase_words, third_person
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

PRONOUNS = (("your ", "his "), ("yourself", "himself"), ("you ", "he "))  # describe's words said of the mover
VERBS = {"lay": "lays", "play": "plays", "extend": "extends", "add": "adds", "take": "takes", "put": "puts",
         "discard": "discards", "finish": "finishes", "keep": "keeps", "move": "moves", "search": "searches",
         "steal": "steals", "give": "gives", "choose": "chooses"}
# What each kind of action does, by the part of its name before the colon (rules §3 to §9).
HELP = {
    "take": "take the card at that Nile position (0 = nearest the 0 space)",
    "character": "play that character from your hand",
    "set": "start a set of those goods on the table (then add cards, then done)",
    "card": "choose a card of that kind",
    "done": "finish the current step (stop adding cards, keep the rest)",
    "token": "take that token",
    "player": "choose the player that many seats after you (0 = yourself)",
    "goods": "choose that goods (or your amulets-only set)",
    "back": "take a card of that back colour",
}
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
    name, prefix, arg = action_parts(A.ACTION_NAMES, action)
    p, pending = s.current_player, s.pending
    if prefix == "take":
        return _take(s, int(arg), "take", ", with no corruption (Merchant)", "your corruption pile",
                     "; nothing goes to your corruption pile")
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
        said = card(KINDS.index(arg))
        return phase_words(pending, {
            (BuildSet, HorizontalSet):
                lambda laying: f"add {said} to the {GOODS[laying.goods]} set being laid (its card "
                               f"{sum(laying.cards) + 1})",
            CourtesanCard: lambda adding: f"add {said} from your hand to your {set_name(adding.slot)}",
            VizierCard: lambda searching: f"take {said} from player_{searching.target}'s corruption pile into "
                                          f"your hand",
            Scribe: f"put {said} from your hand into your corruption pile (Scribe: down to 6 cards)",
            PriestCharacters: f"discard {said} from your corruption pile",
        }, f"choose {said}")
    if name == "done":
        return phase_words(pending, {
            (BuildSet, HorizontalSet): lambda laying: f"finish the {GOODS[laying.goods]} set with its "
                                                      f"{sum(laying.cards)} cards",
            Horizontal: "lay no more horizontal sets (the cards left in your hand go to your corruption pile)",
            CourtesanCard: "add no second card",
            PriestCharacters: "keep the characters left in your corruption pile",
        }, "finish this step")
    if prefix == "token":
        return f"take {token(TOKENS.index(arg))}"
    if prefix == "player":
        target = s.seat_at(int(arg))
        who = "yourself" if target == p else f"player_{target}"
        return phase_words(pending, {
            FirstPlayer: f"choose {who} to play first this round",
            Guild: lambda guild: f"move player_{target} back to the previous {HIEROGLYPHS[guild.symbol]} space",
            Vizier: f"search player_{target}'s corruption pile and take a card of it",
            Thief: f"steal a card from player_{target}'s hand",
        }, f"give the Curse to player_{target} (2 more corruption at the scoring)")
    if prefix == "goods":
        slot = set_name(A.ACTION_SLOT[action])
        return phase_words(pending, {
            Priest: f"discard every {arg} card of your corruption pile (amulets stay)",
            CourtesanSet: f"add 1 or 2 cards from your hand to your {slot}",
            Prosperity: f"put Prosperity on your {slot}: 2 more scarabs on each of its cards' count",
        }, f"choose your {slot}")
    if prefix == "back":
        target = pending.target if isinstance(pending, ThiefBack) else None
        whose = f"player_{target}'s" if target is not None else "the"
        return f"steal a random {arg}-backed card from {whose} hand"
    return name


def seen(s: GameState, action: int, seat: int) -> str | None:
    """Move ``action`` of the player to move in ``s`` as ``seat`` sees it (None: nothing to see). Only
    what is public is named, so two moves that leave ``seat`` the same table read the same."""
    _, prefix, arg = action_parts(A.ACTION_NAMES, action)
    pending = s.pending
    if prefix == "take":
        return _take(s, int(arg), "takes", " (Merchant)", "the corruption pile", "")
    if prefix == "card" and isinstance(pending, Scribe):
        return "puts a card from the hand into the corruption pile (Scribe)"
    if prefix == "card" and isinstance(pending, VizierCard):
        return f"takes a card from player_{pending.target}'s corruption pile (Vizier)"
    if prefix == "back":
        return f"steals a random {arg}-backed card from player_{pending.target}'s hand (Thief)"
    if prefix == "goods" and isinstance(pending, Priest):  # a goods with nothing to discard shows nothing
        return "discards a goods of his choice from his corruption pile (what goes shows on the discard pile)"
    # the rest is public (rules §10): characters, sets, tokens, targets
    return third_person(describe(s, action), PRONOUNS, VERBS)


def _take(s: GameState, position: int, verb: str, merchant: str, pile: str, nothing: str) -> str:
    """A take from the Nile (rules §5): with the Merchant ``merchant`` closes it, else the cards passed over go
    to ``pile`` (``nothing`` where there are none)."""
    taken = f"{verb} {nile_card(s.nile[position])} from Nile position {position}"
    if isinstance(s.pending, Merchant):
        return f"{taken}{merchant}"
    skipped = s.nile[:position]
    return f"{taken}; {_skipped(skipped)} to {pile}" if skipped else f"{taken}{nothing}"


def _skipped(kinds: list[int]) -> str:
    """The Nile cards passed over by a take, and their verb: "ivory (scarabs) goes", "fish, wheat go"."""
    return f"{', '.join(nile_card(k) for k in kinds)} {'goes' if len(kinds) == 1 else 'go'}"
