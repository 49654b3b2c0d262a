"""Structured policy heads for a game's networks (``--heads`` of ``train.py --algo exit``).

A plain :class:`~agents.players.net.PolicyValueNet` is an MLP over the whole observation: to rank three market
stalls it must learn what each stall adds to the hand three times over, once per stall's columns, and to place a
mosaic it must learn the garden's geometry from 64 unrelated inputs. A head adds to the policy's logits of some
actions a score computed the same way for each of them, from the observation's slices and the trunk's latent
(its summary of the rest of the position):

- **Kleopatra ``hands``**: one small network values a candidate hand (its cards, what changed, the face-down
  cards it takes, the trunk's context). Each stall is scored by the hand it would make, against the hand as it
  is (``market:<s>``); the hand as it is also scores the quarry; each ``card:<kind>`` (a payment, a discard, a
  card given) by the hand without that card. The same weights serve every stall and every card.
- **Kleopatra ``board``**: a convolution over the 8 x 8 garden (palms, covered squares, sanctuaries, the seat's
  own), with the tile being placed, its orientation and the trunk's context at every square, gives each
  ``square:<i>`` its logit and, pooled, each ``orient:<r>``. It runs only on the observations that place a tile.

Heads read the observation alone: a network with heads still plays in one forward pass and its features are
still raw. Each head is named in the network's file (``heads``) and built from the table, so a file holds only
tensors.
"""

from __future__ import annotations

import torch
from torch import nn

from agents.players.modelfile import MAX_WIDTH
from sobek_env.kleopatra import actions as kleopatra_actions
from sobek_env.kleopatra.catalogue import NUM_KINDS, ORIENTATIONS, SQUARES, STALLS
from sobek_env.kleopatra.observation import observation_layout
from sobek_env.registry import GAMES, load_game

GARDEN_SIDE = 8      # squares ids 8*y + x
CONTEXT = 64         # the trunk's summary a hand scorer reads
SCORER_WIDTH = 128
BOARD_CONTEXT = 16   # the trunk's summary the garden's convolution reads at every square
BOARD_CHANNELS = 48
BOARD_LAYERS = 3


class KleopatraHands(nn.Module):
    """Scores ``market:<s>``, ``quarry`` and ``card:<kind>`` by the hand each would leave (module docstring)."""

    def __init__(self, num_players: int, latent: int) -> None:
        super().__init__()
        layout = observation_layout(num_players)
        self.hand, self.stalls = layout["hand"], layout["stalls"]
        self.context = nn.Linear(latent, CONTEXT)
        # a candidate: log(1 + its cards), the cards added (negative: given up), the face-down cards, the context
        self.scorer = nn.Sequential(nn.Linear(2 * NUM_KINDS + 1 + CONTEXT, SCORER_WIDTH), nn.ReLU(),
                                    nn.Linear(SCORER_WIDTH, SCORER_WIDTH), nn.ReLU(),
                                    nn.Linear(SCORER_WIDTH, 3))  # a market score, a quarry score, a card score
        self.register_buffer("cards", torch.eye(NUM_KINDS), persistent=False)

    def forward(self, observations: torch.Tensor, latent: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        hand = observations[:, self.hand]
        rows = len(hand)
        stalls = observations[:, self.stalls].reshape(rows, STALLS, NUM_KINDS + 1)
        up, down = stalls[:, :, :NUM_KINDS], stalls[:, :, NUM_KINDS:]
        given = -self.cards.expand(rows, NUM_KINDS, NUM_KINDS)
        added = torch.cat([torch.zeros_like(hand).unsqueeze(1), up, given], dim=1)  # the hand, 3 stalls, 17 cards
        hidden = torch.cat([torch.zeros_like(down[:, :1]), down, torch.zeros_like(given[:, :, :1])], dim=1)
        candidates = hand.unsqueeze(1) + added
        context = torch.relu(self.context(latent)).unsqueeze(1).expand(-1, candidates.shape[1], -1)
        scores = self.scorer(torch.cat([torch.log1p(candidates.clamp(min=0)), added, hidden, context], dim=2))
        a = kleopatra_actions
        extra = torch.zeros_like(logits)
        extra[:, a.MARKET:a.MARKET + STALLS] = scores[:, 1:1 + STALLS, 0] - scores[:, :1, 0]
        extra[:, a.QUARRY] = scores[:, 0, 1]
        extra[:, a.CARD:a.CARD + NUM_KINDS] = scores[:, 1 + STALLS:, 2] - scores[:, :1, 2]
        return logits + extra


class KleopatraBoard(nn.Module):
    """Scores ``square:<i>`` and ``orient:<r>`` by a convolution over the garden (module docstring)."""

    def __init__(self, num_players: int, latent: int) -> None:
        super().__init__()
        layout = observation_layout(num_players)
        own = layout["sanctuary_owner"]
        self.planes = [layout["palms"], layout["covered"], layout["sanctuary"], slice(own.start, own.start + SQUARES)]
        self.tile, self.orient = layout["tile"], layout["orient"]
        tiles = self.tile.stop - self.tile.start
        self.context = nn.Linear(latent, BOARD_CONTEXT)
        layers: list[nn.Module] = []
        channels = len(self.planes) + tiles + ORIENTATIONS + BOARD_CONTEXT
        for _ in range(BOARD_LAYERS):
            layers += [nn.Conv2d(channels, BOARD_CHANNELS, 3, padding=1), nn.ReLU()]
            channels = BOARD_CHANNELS
        self.convolution = nn.Sequential(*layers)
        self.squares = nn.Conv2d(BOARD_CHANNELS, 1, 1)
        self.orientations = nn.Linear(BOARD_CHANNELS + BOARD_CONTEXT, ORIENTATIONS)

    def forward(self, observations: torch.Tensor, latent: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        placing = torch.nonzero(observations[:, self.tile].sum(dim=1) > 0).squeeze(1)
        if len(placing) == 0:
            return logits
        x, rows = observations[placing], len(placing)
        garden = torch.stack([x[:, s] for s in self.planes], dim=1).reshape(rows, -1, GARDEN_SIDE, GARDEN_SIDE)
        context = torch.relu(self.context(latent[placing]))
        everywhere = torch.cat([x[:, self.tile], x[:, self.orient], context], dim=1)
        features = self.convolution(torch.cat([garden, everywhere[:, :, None, None].expand(
            -1, -1, GARDEN_SIDE, GARDEN_SIDE)], dim=1))
        a = kleopatra_actions
        extra = torch.zeros(rows, logits.shape[1], dtype=logits.dtype)
        extra[:, a.SQUARE:a.SQUARE + SQUARES] = self.squares(features).reshape(rows, SQUARES)
        extra[:, a.ORIENT:a.ORIENT + ORIENTATIONS] = self.orientations(
            torch.cat([features.amax(dim=(2, 3)), context], dim=1))
        return logits.index_add(0, placing, extra)


HEADS: dict[str, dict[str, type[nn.Module]]] = {
    "kleopatra": {"hands": KleopatraHands, "board": KleopatraBoard},
    "sobek": {},
}


def head_names(game: str) -> tuple[str, ...]:
    """The heads a network of ``game`` may have."""
    return tuple(HEADS.get(game, {}))


def heads_problem(heads: object, game: str) -> str | None:
    """What makes ``heads`` a list no network of ``game`` may have (None if nothing)."""
    names = head_names(game)
    if not isinstance(heads, list) or not all(isinstance(h, str) for h in heads):
        return f"must be a list of head names, got {heads!r}"
    unknown = [h for h in heads if h not in names]
    if unknown:
        have = f"one of {', '.join(names)}" if names else "none: it has no heads"
        return f"has {unknown[0]!r}, which is not a head of {game}'s networks ({have})"
    if len(set(heads)) != len(heads):
        return f"names a head twice: {heads!r}"
    return None


def add_heads(heads: nn.ModuleDict, observations: torch.Tensor, latent: torch.Tensor,
              logits: torch.Tensor) -> torch.Tensor:
    """``logits`` (the policy's linear head over the trunk's ``latent``) with each of ``heads``' scores added, from
    the raw ``observations`` and the latent."""
    for head in heads.values():
        logits = head(observations, latent, logits)
    return logits


def build_heads(game: str, heads: list[str], num_players: int, latent: int) -> nn.ModuleDict:
    """The (checked) ``heads`` of a network of ``game`` whose trunk ends in ``latent`` units."""
    return nn.ModuleDict({name: HEADS[game][name](num_players, latent) for name in heads})


def heads_parameters(game: str, heads: object, num_players: object, hidden: object) -> int:
    """The parameters ``heads`` add to a network of ``game`` for ``num_players`` whose trunk has the ``hidden``
    layer sizes; 0 where they could not be built (no heads, unknown ones, another table, no trunk or too wide a
    one: refused elsewhere, with a message)."""
    latent = hidden[-1] if isinstance(hidden, list) and hidden else None
    if (not heads or game not in GAMES or heads_problem(heads, game) is not None
            or num_players not in load_game(game).player_counts
            or not isinstance(latent, int) or isinstance(latent, bool) or not 1 <= latent <= MAX_WIDTH):
        return 0
    return sum(p.numel() for p in build_heads(game, heads, num_players, latent).parameters())

