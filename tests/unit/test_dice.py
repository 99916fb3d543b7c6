"""Seeded dice of any size, and the totals a GM may give for them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.dice import KeyedDice
from domain.errors import RuleViolation


@given(seed=st.integers(0, 2**31), seq=st.integers(1, 10_000),
       count=st.integers(1, 12), sides=st.sampled_from([6, 20]))
def test_seeded_dice_stay_on_their_faces_and_repeat(seed: int, seq: int, count: int,
                                                    sides: int) -> None:
    total, faces = KeyedDice(seed, seq).roll("sprint", count, sides)
    assert faces is not None
    assert len(faces) == count
    assert all(1 <= face <= sides for face in faces)
    assert total == sum(faces)
    # The same seed, event and label roll the same dice again.
    assert KeyedDice(seed, seq).roll("sprint", count, sides) == (total, faces)


def test_the_default_is_two_six_sided_dice() -> None:
    total, faces = KeyedDice(7, 3).roll("forage")
    assert faces is not None
    assert len(faces) == 2
    assert 2 <= total <= 12


@pytest.mark.parametrize(("given_total", "ok"), [(1, True), (20, True), (0, False), (21, False)])
def test_a_given_d20_must_be_a_face(given_total: int, ok: bool) -> None:
    dice = KeyedDice(1, 1, {"speed task": given_total})
    if ok:
        assert dice.roll("speed task", 1, 20) == (given_total, None)
    else:
        with pytest.raises(RuleViolation, match="1d20 is impossible; give 1 to 20"):
            dice.roll("speed task", 1, 20)
