"""Adaptive item choice (computerized adaptive testing): which position to ask next.

The next position is the one with the most Fisher information at the respondent's current ability
estimate (`irt.information`): it narrows the estimate most. Asked purely by information, every
respondent would start with the same few positions (at the prior's ability, 0), which over-exposes them
and lets a player tuned on them look better than it is; so the choice is *randomesque* (Kingsbury and
Zara, 1989): one of the `top` most informative unasked positions, drawn by the seeded generator, so the
order is reproducible from the seed and no single position is asked of everyone first.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np
import numpy.typing as npt

from .irt import Ability, ability, information


def next_item(
    theta: float,
    difficulty: npt.ArrayLike,
    discrimination: npt.ArrayLike,
    asked: Collection[int],
    rng: np.random.Generator,
    top: int = 5,
) -> int | None:
    """The position to ask next at ability `theta`: one of the `top` most informative positions not in
    `asked`, drawn uniformly by `rng` (`top=1`: the most informative, ties to the lowest index). None
    when every position has been asked."""
    if top < 1:
        raise ValueError(f"top must be at least 1 (got {top})")
    info = information(theta, difficulty, discrimination)
    unasked = np.array([i for i in range(len(info)) if i not in asked], dtype=int)
    if not len(unasked):
        return None
    order = unasked[np.argsort(-info[unasked], kind="stable")]
    return int(order[rng.integers(min(top, len(order)))])


def adaptive_test(
    answer: Callable[[int], bool],
    difficulty: npt.ArrayLike,
    discrimination: npt.ArrayLike,
    rng: np.random.Generator,
    *,
    until_se: float,
    most: int,
    top: int = 5,
) -> tuple[Ability, list[int], list[bool]]:
    """Ask positions one at a time (`answer(i)`: whether position `i` was answered optimally), each
    chosen by `next_item` at the current EAP estimate, until its standard error is at most `until_se`,
    `most` positions are asked, or none is left. Returns the estimate, the positions asked in order and
    their answers."""
    asked: list[int] = []
    correct: list[bool] = []
    estimate = ability(asked, correct, difficulty, discrimination)
    while len(asked) < most and estimate.se > until_se:
        item = next_item(estimate.theta, difficulty, discrimination, set(asked), rng, top)
        if item is None:
            break
        asked.append(item)
        correct.append(bool(answer(item)))
        estimate = ability(asked, correct, difficulty, discrimination)
    return estimate, asked, correct


__all__ = ["adaptive_test", "next_item"]
