"""Item response theory: the two-parameter logistic model (2PL) of answering a position optimally.

A respondent of ability `theta` answers a position (an item) of difficulty `b` and discrimination `a`
optimally with probability `1 / (1 + exp(-a (theta - b)))`. Difficulty is the ability at which the chance
is one half; discrimination is how steeply the chance rises there, so how well the position separates two
players of nearby ability (near zero or negative: it does not, or it ranks them backwards).

The item parameters are fitted by `girth` (`twopl_mml_eap`: marginal maximum likelihood, abilities
integrated over a standard normal, each discrimination under a Rayleigh prior), a well-kept
implementation of the textbook estimator. The prior matters for a calibration: its respondents are a few
ladder players, so many positions split them perfectly (every answer of the weaker players wrong, of the
stronger right), whose unregularised discrimination runs to girth's bound of 5 and makes an adaptive
run's standard errors far too small after a handful of answers. A discrimination is positive under the
prior, so a position that ranks respondents backwards shows by its negative item-rest correlation, which
is kept beside the fit; abilities are estimated here, by
expected a posteriori (EAP) on a grid with the same standard normal prior, because the adaptive run needs
the posterior's standard error as well as its mean and girth gives only the mean. The prior is what
keeps a respondent who answers everything right (the `optimal` player) at a finite ability. Every step
is deterministic: the same responses give the same fit, bit for bit.

The scale of a fit is arbitrary (any linear change of abilities and difficulties, with discriminations
divided by its slope, fits as well); `AnchoredScale` maps it to one fixed by two reference players.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
GRID = np.linspace(-6.0, 6.0, 241)  # the ability grid of EAP: six prior deviations either side
PRIOR = np.exp(-0.5 * GRID**2)  # the standard normal prior of girth's marginal likelihood (unnormalised)


@dataclass(frozen=True)
class Item:
    """One position's fitted parameters. `difficulty` is None for a position every respondent answered
    the same way: it tells nothing about ability, so its discrimination is 0."""

    difficulty: float | None
    discrimination: float
    rate: float  # share of the calibration's answers that were optimal (classical test theory's p-value)
    # the item-rest correlation (classical discrimination): negative when the respondents who answer it
    # optimally do worse on the rest, i.e. it ranks them backwards; None for an item answered alike
    correlation: float | None = None


@dataclass(frozen=True)
class Fit:
    """A 2PL fit: one `Item` per position, in the responses' order."""

    items: tuple[Item, ...]

    def arrays(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Difficulties and discriminations as arrays; an uninformative item gets discrimination 0
        (and difficulty 0, which then does not matter: its probability is one half at every ability
        and its information zero)."""
        b = np.array([0.0 if i.difficulty is None else i.difficulty for i in self.items])
        a = np.array([i.discrimination for i in self.items])
        return b, a


@dataclass(frozen=True)
class Ability:
    """An ability estimate: the posterior mean and standard deviation (its standard error)."""

    theta: float
    se: float

    def interval(self, z: float = Z95) -> tuple[float, float]:
        return self.theta - z * self.se, self.theta + z * self.se


def probability(
    theta: npt.ArrayLike, difficulty: npt.ArrayLike, discrimination: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """The chance of an optimal answer under the 2PL (broadcast over abilities and items)."""
    a = np.asarray(discrimination, dtype=float)
    b = np.asarray(difficulty, dtype=float)
    return np.asarray(1.0 / (1.0 + np.exp(-a * (np.asarray(theta, dtype=float) - b))), dtype=float)


def information(
    theta: float, difficulty: npt.ArrayLike, discrimination: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """Fisher information of each item at ability `theta`: `a² p (1 - p)`, highest where `theta` equals
    the item's difficulty. The variance of an ability estimate is about one over the information of
    the items answered, so the most informative item is the one that narrows the estimate most."""
    p = probability(theta, difficulty, discrimination)
    return np.asarray(np.asarray(discrimination, dtype=float) ** 2 * p * (1.0 - p), dtype=float)


def fit_2pl(responses: npt.ArrayLike) -> Fit:
    """Item parameters from a binary response matrix, respondents by items (1: answered optimally).

    Items every respondent answered alike are left out of the fit (their likelihood has no maximum)
    and get discrimination 0; the rest are fitted by girth's `twopl_mml_eap`, and each gets its item-rest
    correlation. Raises ValueError for a
    matrix that is not binary, or has fewer than two respondents or than two informative items."""
    from girth import twopl_mml_eap

    x = np.asarray(responses)
    if x.ndim != 2 or x.shape[0] < 2 or not np.isin(x, (0, 1)).all():
        raise ValueError("responses must be a 0/1 matrix of at least two respondents by items")
    rates = x.mean(axis=0)
    informative = (rates > 0) & (rates < 1)
    if informative.sum() < 2:
        raise ValueError(
            f"only {int(informative.sum())} of {x.shape[1]} positions were answered optimally by some "
            "respondents and not others; a fit needs at least two"
        )
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # girth's intermediate 0/0 on extreme items; the result is checked
        fitted = twopl_mml_eap(x[:, informative].T.astype(int))  # girth takes items by respondents
    b = iter(np.asarray(fitted["Difficulty"], dtype=float))
    a = iter(np.asarray(fitted["Discrimination"], dtype=float))
    items = []
    total = x.sum(axis=1)
    for column, (ok, rate) in enumerate(zip(informative, rates, strict=True)):
        if ok:
            difficulty, discrimination = next(b), next(a)
            if not (np.isfinite(difficulty) and np.isfinite(discrimination)):
                raise ValueError("the 2PL fit did not converge to finite parameters")
            rest = total - x[:, column]
            r = float(np.corrcoef(x[:, column], rest)[0, 1]) if rest.std() > 0 else None
            items.append(Item(float(difficulty), float(discrimination), float(rate), r))
        else:
            items.append(Item(None, 0.0, float(rate)))
    return Fit(tuple(items))


def ability(
    answered: Sequence[int],
    correct: npt.ArrayLike,
    difficulty: npt.ArrayLike,
    discrimination: npt.ArrayLike,
) -> Ability:
    """EAP ability from the items answered (indices into the parameter arrays) and whether each answer
    was optimal (1 or 0; or the share of optimal answers where an item was answered several times,
    so that an item counts once: a deterministic player's ten equal answers to one position are one
    observation, not ten). With nothing answered it is the prior's (0, 1)."""
    b = np.asarray(difficulty, dtype=float)[list(answered)]
    a = np.asarray(discrimination, dtype=float)[list(answered)]
    y = np.asarray(correct, dtype=float)
    z = a[None, :] * (GRID[:, None] - b[None, :])
    # log p = -log(1 + e^-z), log(1 - p) = -log(1 + e^z): exact where p rounds to 0 or 1
    loglik = -(y * np.logaddexp(0.0, -z) + (1.0 - y) * np.logaddexp(0.0, z)).sum(axis=1)
    weights = PRIOR * np.exp(loglik - loglik.max())
    weights /= weights.sum()
    mean = float((weights * GRID).sum())
    return Ability(mean, float(np.sqrt((weights * (GRID - mean) ** 2).sum())))


@dataclass(frozen=True)
class AnchoredScale:
    """A linear map of a fit's abilities onto a scale where two reference players sit at fixed points
    (by default 0 for `random` and 1,000 for `optimal`), so abilities from fits of different suites or
    games read on one scale. An interval maps with its ends (the map is increasing)."""

    low: float  # the fitted ability of the low anchor
    high: float  # the fitted ability of the high anchor
    low_value: float = 0.0
    high_value: float = 1000.0

    def __post_init__(self) -> None:
        if not self.high > self.low:
            raise ValueError(
                f"the high anchor's ability ({self.high:.3f}) must exceed the low anchor's ({self.low:.3f})"
            )

    @property
    def slope(self) -> float:
        return (self.high_value - self.low_value) / (self.high - self.low)

    def value(self, theta: float) -> float:
        return self.low_value + (theta - self.low) * self.slope

    def anchored(self, estimate: Ability, z: float = Z95) -> tuple[float, float, float]:
        """The estimate on the anchored scale: (value, interval low, interval high)."""
        lo, hi = estimate.interval(z)
        return self.value(estimate.theta), self.value(lo), self.value(hi)


__all__ = ["Ability", "AnchoredScale", "Fit", "Item", "ability", "fit_2pl", "information", "probability"]
