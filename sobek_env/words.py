"""What the games share in saying actions in words, for people (each game's ``words.py`` has its own tables).

A game's ``describe(s, action)`` says a legal action as the acting seat sees it, in the second person
("take ..., then refill the stalls"), and its ``seen(s, action, seat)`` says the move as another seat sees it:
the hidden moves in words of their own, the public ones as :func:`third_person` turns ``describe``'s words.
Both split the action's name with :func:`action_parts` and pick the words of the pending phase with
:func:`phase_words`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

PhaseWords = Mapping[type | tuple[type, ...], str | Callable[[Any], str]]


def action_parts(action_names: Sequence[str], action: int) -> tuple[str, str, str]:
    """The action's name, and its prefix and argument: ``card:wood`` is ``("card:wood", "card", "wood")``."""
    name = action_names[action]
    prefix, _, arg = name.partition(":")
    return name, prefix, arg


def phase_words(pending: Any, said: PhaseWords, otherwise: str) -> str:
    """The words of the first phase type in ``said`` that ``pending`` is (a text, or a function of the pending
    phase for words that read its fields), else ``otherwise``."""
    for phase, words in said.items():
        if isinstance(pending, phase):
            return words if isinstance(words, str) else words(pending)
    return otherwise


def third_person(said: str, pronouns: Sequence[tuple[str, str]], verbs: Mapping[str, str]) -> str:
    """``describe``'s words for the seat to move said of him: ``pronouns`` replaced in order (``("your ", "his
    ")``), and the opening verb put in the third person where ``verbs`` has it (``{"take": "takes"}``)."""
    for mine, theirs in pronouns:
        said = said.replace(mine, theirs)
    verb, _, rest = said.partition(" ")
    return f"{verbs[verb]} {rest}" if verb in verbs else said
