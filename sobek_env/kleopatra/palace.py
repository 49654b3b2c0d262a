"""The palace's geometry (rules §1.4-§1.5, §6): tile orientations, placements, free areas, sanctuaries,
and the values of walls, gate parts and mosaics.

Everything geometric is precomputed once per garden and tile set (:func:`geometry`, cached): every
placement of every tile in every orientation as a bitmask of the squares it covers (bit ``i`` is
square ``i = 8*y + x``), the palms and the wall slots as bitmasks. The engine then answers every
question of the rules with integer operations on masks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from .catalogue import GATE_BASE, MOSAIC_BASE, NUM_WALL_SLOTS, ORIENTATIONS, SQUARES, WALL_BASE

Cells = tuple[tuple[int, int], ...]

_COLUMN_0 = sum(1 << (8 * y) for y in range(8))
NOT_FIRST_COLUMN = ((1 << SQUARES) - 1) & ~_COLUMN_0          # targets of a step toward larger x
NOT_LAST_COLUMN = ((1 << SQUARES) - 1) & ~(_COLUMN_0 << 7)    # targets of a step toward smaller x
ALL_WALLS = (1 << NUM_WALL_SLOTS) - 1


def bits(mask: int) -> list[int]:
    """The square ids set in ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(squares: tuple[int, ...] | list[int]) -> int:
    out = 0
    for i in squares:
        out |= 1 << i
    return out


def orient_cells(cells: Cells, orient: int) -> Cells:
    """rules §1.5: reflect first for orientations 4-7, then turn a quarter clockwise ``orient % 4`` times,
    then shift so that the smallest x and y are 0; sorted by (y, x), so the anchor comes first."""
    pts = [(-x, y) if orient >= 4 else (x, y) for x, y in cells]
    for _ in range(orient % 4):
        pts = [(y, -x) for x, y in pts]
    min_x = min(x for x, _ in pts)
    min_y = min(y for _, y in pts)
    return tuple(sorted(((x - min_x, y - min_y) for x, y in pts), key=lambda c: (c[1], c[0])))


@dataclass(frozen=True)
class Orientation:
    """One orientation of a tile: its cells (anchor first) and, per anchor square, the mask it covers."""

    cells: Cells
    distinct: bool                     # differs from every smaller orientation (only those are legal)
    placements: tuple[tuple[int, int], ...]  # (anchor square, mask), ascending squares


@dataclass(frozen=True, eq=False)
class Geometry:
    """The precomputed palace of one garden and tile set (one object each: :func:`geometry` is cached, so a
    geometry is compared, and hashed, as itself)."""

    size: int
    garden: int                        # mask of the squares of the garden
    palms: int                         # mask of the palm squares
    wall_masks: tuple[int, ...]        # per wall slot (chain order), its adjacent squares
    orientations: tuple[tuple[Orientation, ...], ...]  # per tile, ORIENTATIONS entries
    placements_of_tile: tuple[tuple[tuple[int, int, int], ...], ...]  # per tile: (orient, square, mask)
    max_palms: tuple[int, ...]         # per tile, the most palms one placement covers
    anchored: tuple[dict[int, tuple[int, ...]], ...]  # per tile: anchor square -> masks of its placements there

    def tile_placeable(self, tile: int, blocked: int) -> bool:
        """Whether ``tile`` has a placement avoiding ``blocked`` (rules §6.2)."""
        return _tile_placeable(self, tile, blocked)

    def legal_orients(self, tile: int, blocked: int) -> list[int]:
        """rules §14.2 mosaic_orient: distinct orientations with at least one legal square."""
        out = []
        for r, o in enumerate(self.orientations[tile]):
            if o.distinct and any(not m & blocked for _, m in o.placements):
                out.append(r)
        return out

    def legal_squares(self, tile: int, orient: int, blocked: int) -> list[int]:
        return [sq for sq, m in self.orientations[tile][orient].placements if not m & blocked]

    def placement_mask(self, tile: int, orient: int, square: int) -> int | None:
        """The squares covered by ``tile`` in ``orient`` anchored on ``square`` (None: off the garden)."""
        if not 0 <= orient < ORIENTATIONS:
            return None
        o = self.orientations[tile][orient]
        if not o.distinct:
            return None
        for sq, m in o.placements:
            if sq == square:
                return m
        return None

    def fits_inside(self, tile: int, area: int) -> bool:
        """Whether ``tile`` has a placement lying entirely inside ``area`` (rules §6.4)."""
        outside = ~area
        anchored = self.anchored[tile]
        while area:
            low = area & -area
            for m in anchored.get(low.bit_length() - 1, ()):
                if not m & outside:
                    return True
            area ^= low
        return False

    def tiles_inside(self, area: int) -> int:
        """The tiles that fit inside ``area`` (:meth:`fits_inside`), as a mask with bit ``t`` for tile ``t``."""
        return _tiles_inside(self, area)

    def free_areas(self, covered: int) -> list[int]:
        """rules §6.4: the edge-connected groups of garden squares not covered by a mosaic, as masks,
        in the order of their lowest square."""
        return list(_free_areas(self.garden & ~covered))

    def new_sanctuaries(self, covered: int, sanctuaries: list[int], stack: list[int], max_squares: int) -> list[int]:
        """rules §6.4: the free areas that become sanctuaries now, in the order of their lowest square: not
        yet a sanctuary, at most ``max_squares`` squares, and no tile of ``stack`` fits inside."""
        out = []
        tiles = tile_mask(stack)
        for area in self.free_areas(covered):
            if area in sanctuaries or area.bit_count() > max_squares:
                continue
            if not self.tiles_inside(area) & tiles:
                out.append(area)
        return out

    def wall_value(self, slot: int, covered: int) -> int:
        """rules §1.3: 3 + 1 per mosaic-covered square adjacent to the slot (0-based chain index)."""
        return WALL_BASE + (self.wall_masks[slot] & covered).bit_count()

    def mosaic_value(self, mask: int) -> int:
        """rules §6.3: 4 + 1 per palm square the tile covers."""
        return MOSAIC_BASE + (mask & self.palms).bit_count()


def tile_mask(tiles: list[int]) -> int:
    """The mask with bit ``t`` for each tile ``t`` of ``tiles``."""
    out = 0
    for t in tiles:
        out |= 1 << t
    return out


# The same questions of the same garden come back at every step of a game (and at every check of the stress
# run): each is answered once. Bounded, as the gardens of many games pass through a process.
@lru_cache(maxsize=1 << 14)
def _tile_placeable(geo: Geometry, tile: int, blocked: int) -> bool:
    return any(not m & blocked for _, _, m in geo.placements_of_tile[tile])


@lru_cache(maxsize=1 << 14)
def _tiles_inside(geo: Geometry, area: int) -> int:
    return tile_mask([t for t in range(len(geo.placements_of_tile)) if geo.fits_inside(t, area)])


@lru_cache(maxsize=4096)
def _free_areas(free: int) -> tuple[int, ...]:
    areas = []
    while free:
        area = free & -free
        while True:
            grown = (area | ((area << 1) & NOT_FIRST_COLUMN) | ((area >> 1) & NOT_LAST_COLUMN)
                     | (area << 8) | (area >> 8)) & free
            if grown == area:
                break
            area = grown
        areas.append(area)
        free &= ~area
    return tuple(areas)


def gate_run(walls: int, side: int) -> int:
    """rules §1.4: the walls in the unbroken run from the door frame of ``side`` (0 left from W1, 1 right
    from W9); ``walls`` has bit ``k`` set when slot W(k+1) is built."""
    run = 0
    slots = range(NUM_WALL_SLOTS) if side == 0 else range(NUM_WALL_SLOTS - 1, -1, -1)
    for k in slots:
        if not (walls >> k) & 1:
            break
        run += 1
    return run


def gate_value(walls: int, side: int) -> int:
    return GATE_BASE + gate_run(walls, side)


@cache
def geometry(size: int, palms: tuple[int, ...], wall_slots: tuple[tuple[int, ...], ...], tiles: tuple[Cells, ...],
             reflections: bool) -> Geometry:
    """The precomputed palace for a garden of ``size`` x ``size`` and the given tiles (rules §1.4, §1.5)."""
    garden = mask_of([8 * y + x for y in range(size) for x in range(size)])
    palm_mask = mask_of(palms)
    orientations = []
    per_tile = []
    for cells in tiles:
        seen: list[Cells] = []
        own = []
        for r in range(ORIENTATIONS):
            if r >= 4 and not reflections:
                own.append(Orientation((), False, ()))
                continue
            shape = orient_cells(cells, r)
            distinct = shape not in seen
            seen.append(shape)
            ax, ay = shape[0]
            offsets = [(x - ax, y - ay) for x, y in shape]
            placements = []
            if distinct:
                for sq in range(SQUARES):
                    x0, y0 = sq % 8, sq // 8
                    if x0 >= size or y0 >= size:
                        continue
                    cells_at = [(x0 + dx, y0 + dy) for dx, dy in offsets]
                    if all(0 <= x < size and 0 <= y < size for x, y in cells_at):
                        placements.append((sq, mask_of([8 * y + x for x, y in cells_at])))
            own.append(Orientation(shape, distinct, tuple(placements)))
        orientations.append(tuple(own))
        per_tile.append(tuple((r, sq, m) for r, o in enumerate(own) for sq, m in o.placements))
    return Geometry(
        size=size,
        garden=garden,
        palms=palm_mask,
        wall_masks=tuple(mask_of(slot) for slot in wall_slots),
        orientations=tuple(orientations),
        placements_of_tile=tuple(per_tile),
        max_palms=tuple(max(((m & palm_mask).bit_count() for _, _, m in own), default=0) for own in per_tile),
        anchored=tuple(_by_anchor(own) for own in per_tile),
    )


def _by_anchor(placements: tuple[tuple[int, int, int], ...]) -> dict[int, tuple[int, ...]]:
    out: dict[int, list[int]] = {}
    for _, sq, m in placements:
        out.setdefault(sq, []).append(m)
    return {sq: tuple(masks) for sq, masks in out.items()}

