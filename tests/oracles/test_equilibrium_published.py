"""The equilibria of Leduc poker and Liar's dice against their published game values.

The first player's value is the same in every equilibrium of a two-player zero-sum game, so an
ε-equilibrium's value lies within its NashConv (twice OpenSpiel's exploitability) of the published
one. Published values (Lanctot, *Monte Carlo Sampling and Regret Minimization for Equilibrium
Computation and Decision-Making in Large Extensive Form Games*, PhD thesis, 2013): Leduc hold'em
-0.0856 (to four places; -0.085606 to six), Liar's dice with one six-sided die each -7/258. The
exploitability is recomputed here by OpenSpiel's own best response, not taken from plylab's file.
"""

from __future__ import annotations

import pyspiel
import pytest

from plylab.oracles.equilibrium import TARGET, EquilibriumOracle

PUBLISHED = {"leduc_poker": -0.085606, "liars_dice": -7 / 258}


@pytest.mark.slow  # Liar's dice's table takes a minute or two to build where no test built it yet
@pytest.mark.parametrize("key", sorted(PUBLISHED))
def test_the_equilibrium_value_is_the_published_one(key: str) -> None:
    game = pyspiel.load_game(key)
    oracle = EquilibriumOracle.load_or_build(game, key)
    table = {k: list(e.policy.items()) for k, e in oracle.infosets.items()}
    exploitability = pyspiel.exploitability(game, table)
    assert exploitability <= TARGET * (game.max_utility() - game.min_utility())
    assert oracle.value[0] == pytest.approx(PUBLISHED[key], abs=2 * exploitability + 1e-6)
    assert oracle.value[1] == pytest.approx(-oracle.value[0], abs=1e-9)  # zero-sum
