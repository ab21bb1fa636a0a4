"""The plot style, kept under its old name: the home is `plylab.render.plots`."""

from ..render.plots import PALETTE, RC, styled

__all__ = ["PALETTE", "RC", "styled"]
