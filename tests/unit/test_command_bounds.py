"""A command carries its bounds: one made out of them is refused as it is made, with the rules'
own sentence and error class, never a pydantic message; one within them is made.

Every expected sentence is worked out by hand from domain/bounds.py (MAX_POINTS = 1,000,000,
MAX_LEVEL = 100, MAX_MILES = 10,000, MAX_AMOUNT = 1,000,000,000, MAX_NAME = 40, MAX_TEXT = 200,
MAX_CAMPAIGN_NAME = 80, MAX_COORDINATE = 1,000,000).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import AfterValidator, ValidationError
from pydantic.dataclasses import dataclass as pydantic_dataclass

from domain.commands.encounter import EnterCombatant, StartEncounter
from domain.commands.history import Redo, Undo
from domain.commands.roster import AddCharacter, AddMount, AddVehicle, Harm
from domain.commands.sessions import StartSession
from domain.commands.supplies import AddSupplies, SetSupplies, SpendSupplies
from domain.cypher.combat import RollChase, StartChase
from domain.errors import RuleViolation
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.shadowrun.commands import Sprint

REFUSED: list[tuple[Callable[[], Any], str]] = [
    # Harm: 0 to MAX_POINTS, a negative amount refused in words of its own.
    (lambda: Harm("Kira", health=1_000_001), "--health must be 0 to 1,000,000, not 1,000,001"),
    (lambda: Harm("Kira", energy=2_000_000), "--energy must be 0 to 1,000,000, not 2,000,000"),
    (lambda: Harm("Kira", health=-1),
     "harm takes away Health or Energy; give amounts of 0 or more"),
    (lambda: Harm("Kira", health=1, reason=""), "the reason '' is empty"),
    (lambda: Harm("Kira", health=1, reason="x" * 201),
     "the reason '" + "x" * 201 + "' is 201 characters long; at most 200 are kept"),
    # A new roster name: printable, at most MAX_NAME, no '=' and no edge spaces.
    (lambda: AddMount(""), "a name cannot be empty"),
    (lambda: AddMount("a" * 41),
     "the name '" + "a" * 41 + "' is 41 characters long; at most 40 are kept"),
    (lambda: AddVehicle("Cart=1"),
     "the name 'Cart=1' holds '=', which options such as --roll NAME=R use as a separator; "
     "pick another name"),
    (lambda: AddVehicle(" Cart"),
     "the name ' Cart' starts or ends with a space; give it without"),
    (lambda: AddMount("Bess\n"),
     "the name 'Bess\\n' holds a control or invisible character (U+000A); use printable text "
     "on one line"),
    # --move: miles up to MAX_MILES, any other attribute up to MAX_LEVEL.
    (lambda: AddVehicle("Cart", move=("miles", 10_001)),
     "--move miles must be 0 to 10,000, not 10,001"),
    (lambda: AddMount("Bess", move=("ground-speed", 101)),
     "--move ground-speed must be 0 to 100, not 101"),
    # Characters: skill and attribute levels 0 to MAX_LEVEL, maxima 1 to MAX_POINTS.
    (lambda: AddCharacter(CharacterOptions("Kira", skills={"ride": 101})),
     "the skill ride's level must be 0 to 100, not 101"),
    (lambda: AddCharacter(CharacterOptions("Kira", attributes={"speed": -1})),
     "the attribute speed needs a level of 0 or more, not -1"),
    (lambda: AddCharacter(CharacterOptions("Kira", health_max=1_000_001)),
     "--health-max must be 1 to 1,000,000, not 1,000,001"),
    (lambda: AddCharacter(CharacterOptions("Kira", energy_max=-5)),
     "--energy-max must be 1 to 1,000,000, not -5"),
    # Supplies: a known kind, 0 (set) or 1 (add, spend) up to MAX_AMOUNT.
    (lambda: SetSupplies({}), "name at least one supply, as KIND=N"),
    (lambda: SetSupplies({"food": 1}),
     "'food' is not a supply; use provisions, fuel, ammo, wealth"),
    (lambda: SetSupplies({"fuel": 1_000_000_001}),
     "fuel must be 0 to 1,000,000,000, not 1,000,000,001"),
    (lambda: AddSupplies({"ammo": 0}), "ammo needs a whole number of at least 1, not 0"),
    (lambda: SpendSupplies({"wealth": -3}), "wealth needs a whole number of at least 1, not -3"),
    # Names of encounters and titles of sessions; reasons of undo and redo.
    (lambda: StartEncounter("e" * 81),
     "the encounter name '" + "e" * 81 + "' is 81 characters long; at most 80 are kept"),
    (lambda: StartSession("   "), "the session title '   ' is empty"),
    (lambda: Undo(reason="\t"), "the reason '\\t' is empty"),
    (lambda: Redo(3, reason="a\u200bb"),
     "the reason 'a\\u200bb' holds a control or invisible character (U+200B); use printable "
     "text on one line"),
    # The cell a combatant enters: within ±MAX_COORDINATE.
    (lambda: EnterCombatant("Kira", at=Square(1_000_001, 0)),
     "the cell 1000001,0 is too far out; coordinates stay within ±1,000,000"),
    # The rulesets' own: a chase's level 1 to 10, steps 0 or more, a sprint's TN 2 to 30 and
    # given successes 0 to 30.
    (lambda: StartChase("Kira", level=11), "a chase's level is 1 to 10 (the NPC's level), not 11"),
    (lambda: StartChase("Kira", level=3, ease=-1), "--ease takes 0 or more steps, not -1"),
    (lambda: RollChase("Kira", hinder=-2), "--hinder takes 0 or more steps, not -2"),
    (lambda: Sprint("Kira", tn=31), "--tn must be 2 to 30, not 31"),
    (lambda: Sprint("Kira", successes=31), "--roll is the number of successes: 0 to 30, not 31"),
]


@pytest.mark.parametrize(("make", "sentence"), REFUSED)
def test_a_command_out_of_its_bounds_is_refused_as_it_is_made(
        make: Callable[[], Any], sentence: str) -> None:
    with pytest.raises(RuleViolation) as refused:
        make()
    # The rules' own error, unchanged: not a pydantic ValidationError (a ValueError).
    assert type(refused.value) is RuleViolation
    assert not isinstance(refused.value, ValueError)
    assert str(refused.value) == sentence


def test_pydantic_lets_a_domain_error_raised_by_a_check_through_unchanged() -> None:
    def refuse(value: int) -> int:
        raise RuleViolation(f"no {value}")

    @pydantic_dataclass(frozen=True)
    class Checked:
        value: Annotated[int, AfterValidator(refuse)]

    with pytest.raises(RuleViolation, match=r"^no 3$"):
        Checked(3)


def test_a_command_is_frozen_hashable_and_equal_by_value() -> None:
    harm = Harm("Kira", health=2, reason="a fall")
    assert harm == Harm("Kira", 2, 0, "a fall")
    assert hash(harm) == hash(Harm("Kira", 2, 0, "a fall"))
    assert harm != Harm("Kira", health=3, reason="a fall")
    with pytest.raises(AttributeError):
        harm.health = 5  # type: ignore[misc]


def test_a_wrong_type_is_a_programming_error_the_front_ends_never_make() -> None:
    # The command line converts every value before it builds a command (and the table's API
    # runs the command line), so only code can give a command a wrong type.
    with pytest.raises(ValidationError):
        Harm("Kira", health="much")  # type: ignore[arg-type]


names = st.text(alphabet=st.characters(whitelist_categories=("L", "N")), min_size=1,
                max_size=40)
points = st.integers(0, 10**6)
maxima = st.integers(1, 10**6)
levels = st.integers(0, 100)


@given(name=names, health=points, energy=points, maximum=maxima, skill=levels,
       miles=st.integers(0, 10_000),
       amount=st.integers(1, 10**9), x=st.integers(-10**6, 10**6), level=st.integers(1, 10),
       tn=st.integers(2, 30), successes=st.integers(0, 30))
def test_any_value_within_the_bounds_makes_a_command(
        name: str, health: int, energy: int, maximum: int, skill: int, miles: int,
        amount: int, x: int, level: int, tn: int, successes: int) -> None:
    assert Harm(name, health, energy, name).health == health
    assert AddCharacter(CharacterOptions(name, skills={name: skill}, attributes={name: skill},
                                         health_max=maximum, energy_max=maximum))
    assert AddVehicle(name, move=("miles", miles)).move == ("miles", miles)
    assert AddMount(name, move=(name, skill)).move == (name, skill)
    assert AddSupplies({"provisions": amount}).amounts == {"provisions": amount}
    assert SetSupplies({"fuel": amount - 1}).amounts == {"fuel": amount - 1}
    assert EnterCombatant(name, at=Square(x, -x)).at == Square(x, -x)
    assert StartChase(name, level=level, ease=skill, hinder=skill).level == level
    assert Sprint(name, tn=tn, successes=successes).tn == tn
    assert StartEncounter(name).name == name
    assert Undo(reason=name).reason == name
