"""Pictures of the table for the ``rgb_array`` render mode and animated replays: the game's text picture
drawn in a monospaced font on a light page (Pillow, the optional extra ``pictures``).

A picture of the text, not a drawing of the board: the games have no board artwork yet, and the text
is what each seat may see (the renderer decides that), so a picture shows no more than the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

PAPER, INK = (250, 247, 238), (30, 30, 30)
MARGIN = 8
FONT_SIZE = 14


@cache
def _font() -> Any:
    """DejaVu Sans Mono if the system has it, else Pillow's built-in fixed-width bitmap font."""
    try:
        from PIL import ImageFont
    except ImportError:
        raise ImportError("pictures need Pillow: pip install 'sobek-env[pictures]'") from None
    try:
        return ImageFont.truetype("DejaVuSansMono.ttf", FONT_SIZE)
    except OSError:
        return getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)()  # Pillow < 10.1: the bitmap font


def text_picture(text: str, size: tuple[int, int] | None = None) -> np.ndarray:
    """``text`` drawn on a page: an (H, W, 3) uint8 array, of ``size`` (W, H) if given (cut or padded)."""
    from PIL import Image, ImageDraw

    font = _font()
    lines = text.splitlines() or [""]
    step = font.getbbox("Mg")[3] + 3
    char = font.getlength("M")
    width = size[0] if size else int(2 * MARGIN + char * max(len(line) for line in lines))
    height = size[1] if size else 2 * MARGIN + step * len(lines)
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((MARGIN, MARGIN + i * step), line, fill=INK, font=font)
    return np.asarray(image)


def save_gif(texts: Sequence[str], path: str | Path, seconds: float = 1.0) -> None:
    """An animated GIF with one frame per text, ``seconds`` apart, every frame the size of the largest."""
    from PIL import Image

    frames = [text_picture(t) for t in texts]
    size = (max(f.shape[1] for f in frames), max(f.shape[0] for f in frames))
    images = [Image.fromarray(text_picture(t, size)) for t in texts]
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(seconds * 1000), loop=0,
                   optimize=True)
