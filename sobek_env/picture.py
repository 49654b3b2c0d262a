"""Drawn pictures of a table, for the ``rgb_array`` render mode and animated replays (Pillow, the extra
``pictures``).

The game-agnostic part: a :class:`Canvas` with the few shapes the games' pictures are made of (boxes,
cards, discs, short labels in a small font), the seats' colours, and :func:`save_gif`. Each game draws
its own table from what one seat sees (``sobek_env/<game>/picture.py``); this module knows no game.
A picture's size depends only on the game and the number of players, never on the position, so the
frames of a game make a video.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

PAPER = (246, 241, 228)
INK = (40, 34, 28)
MUTED = (125, 116, 104)
LINE = (196, 186, 166)
PANEL = (236, 229, 212)
WHITE = (255, 255, 255)
HIGHLIGHT = (255, 214, 64)
# one colour per seat, the same in every picture and in the terminal (player_0 red, player_1 blue, ...)
SEAT_COLOURS = ((205, 50, 45), (40, 95, 205), (30, 145, 70), (150, 75, 185), (40, 40, 40))

MAX_FRAME_SECONDS = 655.35  # a GIF frame's delay is 16 bits of hundredths of a second

_FONT_FILES = {False: ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"), True: ("DejaVuSans-Bold.ttf",)}


def _pillow() -> Any:
    try:
        import PIL.Image
    except ImportError:
        raise ImportError("pictures need Pillow: pip install 'sobek-env[pictures]'") from None
    return PIL


@cache
def font(size: int, bold: bool = False) -> Any:
    """DejaVu Sans if the system has it (it reads best at small sizes), else Pillow's own font."""
    _pillow()
    from PIL import ImageFont

    for name in _FONT_FILES[bold]:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1: a scalable font
    except TypeError:
        return ImageFont.load_default()


def text_colour(fill: tuple[int, int, int]) -> tuple[int, int, int]:
    """Ink that reads on ``fill``: white on dark colours, dark ink on light ones."""
    r, g, b = fill
    return WHITE if 0.299 * r + 0.587 * g + 0.114 * b < 140 else INK


def shade(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    """``colour`` darker (factor < 1) or towards white (factor > 1)."""
    if factor <= 1:
        return tuple(int(c * factor) for c in colour)
    return tuple(int(c + (255 - c) * (factor - 1)) for c in colour)


class Canvas:
    """Pillow's drawing on one picture, with the project's few shapes. ``Canvas.blank(w, h)`` starts a page;
    ``Canvas(background.copy())`` draws over a copy of a background drawn once."""

    def __init__(self, image: Any) -> None:
        from PIL import ImageDraw

        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.width, self.height = image.size

    @classmethod
    def blank(cls, width: int, height: int, background: tuple[int, int, int] = PAPER) -> Canvas:
        """A page of ``width`` x ``height`` pixels in ``background``."""
        return cls(_pillow().Image.new("RGB", (width, height), background))

    def text(self, xy: tuple[float, float], text: str, size: int = 12, fill: tuple[int, int, int] = INK,
             bold: bool = False, anchor: str = "la") -> float:
        """Draw ``text`` at ``xy`` (Pillow's anchor: ``la`` left-top, ``mm`` centred, ``ra`` right-top);
        its width."""
        typeface = font(size, bold)
        self.draw.text(xy, text, fill=fill, font=typeface, anchor=anchor)
        return typeface.getlength(text)

    def width_of(self, text: str, size: int = 12, bold: bool = False) -> float:
        return font(size, bold).getlength(text)

    def fit(self, text: str, width: float, size: int = 12, bold: bool = False) -> str:
        """``text``, shortened with an ellipsis if need be to fit in ``width`` pixels."""
        if self.width_of(text, size, bold) <= width:
            return text
        while text and self.width_of(text + "...", size, bold) > width:
            text = text[:-1]
        return text.rstrip() + "..."

    def box(self, rect: tuple[float, float, float, float], fill: tuple[int, int, int] | None = None,
            outline: tuple[int, int, int] | None = None, width: int = 1, radius: int = 0) -> None:
        """A rectangle (x0, y0, x1, y1), rounded by ``radius``."""
        if radius:
            self.draw.rounded_rectangle(rect, radius, fill=fill, outline=outline, width=width)
        else:
            self.draw.rectangle(rect, fill=fill, outline=outline, width=width)

    def disc(self, centre: tuple[float, float], radius: float, fill: tuple[int, int, int] | None,
             outline: tuple[int, int, int] | None = None, width: int = 1) -> None:
        x, y = centre
        self.draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill, outline=outline, width=width)

    def badge(self, centre: tuple[float, float], label: str, fill: tuple[int, int, int] = INK, size: int = 10) -> None:
        """A small count in a disc (how many cards a mini card stands for)."""
        radius = max(7, self.width_of(label, size, True) / 2 + 3)
        self.disc(centre, radius, fill, WHITE)
        self.text(centre, label, size, text_colour(fill), bold=True, anchor="mm")

    def panel(self, rect: tuple[float, float, float, float], title: str = "", colour: tuple[int, int, int] = LINE,
              fill: tuple[int, int, int] = PANEL) -> None:
        """A framed area with its title in the top-left corner."""
        self.box(rect, fill=fill, outline=colour, width=2, radius=6)
        if title:
            self.text((rect[0] + 8, rect[1] + 5), title, 11, MUTED, bold=True)

    def array(self) -> np.ndarray:
        """The picture as an (H, W, 3) uint8 array."""
        return np.asarray(self.image, dtype=np.uint8).copy()


CAPTION_HEIGHT = 24


def captioned(frame: np.ndarray, text: str) -> np.ndarray:
    """``frame`` with a strip of :data:`CAPTION_HEIGHT` pixels above it holding ``text`` (a replay's step)."""
    canvas = Canvas.blank(frame.shape[1], CAPTION_HEIGHT, (28, 24, 20))
    canvas.text((10, CAPTION_HEIGHT / 2), text, 12, WHITE, anchor="lm")
    return np.concatenate([canvas.array(), frame], axis=0)


def save_gif(frames: Sequence[np.ndarray], path: str | os.PathLike, seconds: float = 1.0) -> int:
    """Write ``frames`` (H x W x 3 uint8 arrays of one size) as a looping animated GIF, ``seconds`` per frame,
    in one palette shared by every frame, each frame stored as its change from the one before; its size in
    bytes. The file is written aside and renamed, so a failure leaves no half-written file."""
    _pillow()
    from PIL import Image

    if not frames:
        raise ValueError("a GIF needs at least one frame")
    if not 0 < seconds <= MAX_FRAME_SECONDS:
        raise ValueError(f"seconds per frame must be more than 0 and at most {MAX_FRAME_SECONDS}, got {seconds!r}")
    shapes = {np.shape(f) for f in frames}
    if len(shapes) != 1 or len(next(iter(shapes))) != 3 or next(iter(shapes))[2] != 3:
        raise ValueError(f"GIF frames must be H x W x 3 arrays of one size, got shapes {sorted(shapes)}")
    palette = _palette(frames)
    images = [Image.fromarray(np.asarray(f, dtype=np.uint8)).quantize(palette=palette, dither=Image.Dither.NONE)
              for f in frames]
    path = Path(path)
    with _aside(path) as aside:
        images[0].save(aside, format="GIF", save_all=True, append_images=images[1:],
                       duration=max(20, round(seconds * 1000)), loop=0, optimize=True)
    return path.stat().st_size


def save_png(frame: np.ndarray, path: str | os.PathLike) -> None:
    """Write one picture as a PNG (aside, then renamed, like :func:`save_gif`)."""
    _pillow()
    from PIL import Image

    with _aside(Path(path)) as aside:
        Image.fromarray(np.asarray(frame, dtype=np.uint8)).save(aside, format="PNG", optimize=True)


@contextlib.contextmanager
def _aside(path: Path) -> Iterator[Path]:
    """A hidden file beside ``path`` to write, renamed to ``path`` once written; removed if anything fails,
    and an OSError names ``path``, not the file aside."""
    aside = path.with_name(f".{path.name}.tmp")
    try:
        yield aside
        os.replace(aside, path)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    finally:
        with contextlib.suppress(OSError):
            aside.unlink(missing_ok=True)


def _palette(frames: Sequence[np.ndarray]) -> Any:
    """One 256-colour palette for a whole animation, from a sample of its frames side by side."""
    from PIL import Image

    sample = [frames[i] for i in sorted({0, len(frames) // 3, 2 * len(frames) // 3, len(frames) - 1})]
    return Image.fromarray(np.concatenate(sample, axis=1)).quantize(colors=256, method=Image.Quantize.MEDIANCUT)
