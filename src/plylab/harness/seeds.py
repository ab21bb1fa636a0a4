"""Seeds, kept under their old name: the home is `plylab.seeds` (the ground floor)."""

from ..seeds import clue_seed_v1, derive_seed

__all__ = ["clue_seed_v1", "derive_seed"]
