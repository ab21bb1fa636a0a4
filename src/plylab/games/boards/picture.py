"""A drawn board as a picture a multimodal model can be sent (the llm player's `view=image`).

The picture is the site's own SVG board (the same drawing, coordinates included, with no marks:
no move values, nothing the model should not see) rendered to PNG by cairosvg. cairosvg is a
Python library over the system's libcairo2 (Debian's `libcairo2`), so it renders offline and
deterministically in CI, without a browser to start for every move.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from . import DRAWINGS, Marks, draw

if TYPE_CHECKING:
    import pyspiel

SCALE = 2.0  # twice the site's CSS pixels: the coordinates stay legible to a vision encoder


def has_drawing(game: str) -> bool:
    """Whether `game` (a name, parameters after ':' allowed) has a drawn board."""
    return game.split(":", 1)[0] in DRAWINGS


def svg_to_png(svg: str, scale: float = SCALE) -> bytes:
    """PNG bytes of an SVG text."""
    import cairosvg  # here: it loads libcairo, which only a drawn view needs

    out = cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale)
    if not isinstance(out, bytes):
        raise TypeError("cairosvg wrote no bytes")
    return out


def board_png(game: str, state: pyspiel.State) -> bytes | None:
    """The position as the site draws it, as PNG; None where the game or this position has no drawing."""
    svg = draw(game, state, Marks())
    return None if svg is None else svg_to_png(svg)


def data_uri(png: bytes) -> str:
    """A PNG as the data URI inspect's ContentImage (and an OpenAI image_url) carries."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
