"""The parties' colour families (cli/route.py, RULES.md §15) as colour-blind players see them.

Each colour is passed through the dichromat simulations of Machado, Oliveira and Fernandes
(2009, severity 1: protanopia, deuteranopia, tritanopia) in linear sRGB and compared in CIELAB
(ΔE 1976; about 2.3 is just noticeable, above 10 plainly different side by side)."""

from __future__ import annotations

import itertools
import math

import pytest
from partypictures import hue, hue_apart

from cli.route import PARTY_FAMILIES, SHADE_MIXES, party_shade

SIMULATIONS = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
    "typical": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
}


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def _lab(colour: str, seen_by: str) -> tuple[float, float, float]:
    rgb = [_linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5)]
    red, green, blue = (min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True))))
                        for row in SIMULATIONS[seen_by])
    x = (0.4124 * red + 0.3576 * green + 0.1805 * blue) / 0.95047
    y = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    z = (0.0193 * red + 0.1192 * green + 0.9505 * blue) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _apart(a: str, b: str, seen_by: str) -> float:
    return math.dist(_lab(a, seen_by), _lab(b, seen_by))


def _shades(index: int) -> list[str]:
    return [party_shade(index, turn) for turn in range(len(SHADE_MIXES))]


@pytest.mark.parametrize("seen_by", list(SIMULATIONS))
def test_two_parties_stay_apart_in_every_shade(seen_by: str) -> None:
    """The usual split, two parties: any day of one against any day of the other."""
    closest = min(_apart(a, b, seen_by) for a in _shades(0) for b in _shades(1))
    assert closest > 40


@pytest.mark.parametrize("seen_by", list(SIMULATIONS))
def test_every_family_differs_from_every_other_and_its_days_from_each_other(
        seen_by: str) -> None:
    families = range(len(PARTY_FAMILIES))
    for a, b in itertools.combinations(families, 2):
        assert _apart(party_shade(a, 0), party_shade(b, 0), seen_by) > 10, (a, b)
    for index in families:
        for a, b in itertools.combinations(_shades(index), 2):
            assert _apart(a, b, seen_by) > 10, (index, a, b)


def test_a_familys_shades_keep_its_hue_and_the_families_hues_differ() -> None:
    for index in range(len(PARTY_FAMILIES)):
        hues = [hue(shade) for shade in _shades(index)]
        assert max(hue_apart(hues[0], other) for other in hues) < 2
    for a, b in itertools.combinations(range(len(PARTY_FAMILIES)), 2):
        assert hue_apart(hue(party_shade(a, 0)), hue(party_shade(b, 0))) > 30


def test_the_families_are_the_okabe_ito_colours() -> None:
    okabe_ito = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}
    assert {colour for _, colour in PARTY_FAMILIES} <= okabe_ito
    assert [party_shade(index, 0) for index in range(len(PARTY_FAMILIES))] == [
        colour.lower() for _, colour in PARTY_FAMILIES]
