"""Bounds on everything a GM types: names, texts and numbers, checked before an event exists.

A command carries the bounds of what it is given on its fields (`bounded`, `named`, `texted`:
pydantic runs the `check_*` helpers as the command is made), so a command out of bounds is
refused, with the sentence a GM reads, before the campaign is even loaded. The same bounds are
pydantic constraints on the events themselves, so no event outside them can be made, stored or
shown.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import AfterValidator, Field, ValidationError

from domain.bounds import (
    MAX_AMOUNT,
    MAX_CAMPAIGN_NAME,
    MAX_COORDINATE,
    MAX_LEVEL,
    MAX_MILES,
    MAX_NAME,
    MAX_POINTS,
    MAX_SEED,
    MAX_TEXT,
)
from domain.errors import RuleViolation
from domain.geometry import Square

# The empty mapping a record's mapping field defaults to: one, shared, which nothing can change.
NOTHING: Mapping[str, Any] = MappingProxyType({})


def _shown(text: str) -> str:
    """A text as it may appear inside a message: control characters made visible."""
    return repr(text[:MAX_TEXT + 1])


def text_problem(text: str, *, limit: int) -> str | None:
    """Why `text` cannot be recorded as a name or note, or None when it can."""
    if not text.strip():
        return "is empty"
    if len(text) > limit:
        return f"is {len(text)} characters long; at most {limit} are kept"
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return ("holds a control or invisible character "
                    f"(U+{ord(char):04X}); use printable text on one line")
    return None


def check_text(text: str, what: str, *, limit: int = MAX_TEXT) -> str:
    problem = text_problem(text, limit=limit)
    if problem is not None:
        raise RuleViolation(f"the {what} {_shown(text)} {problem}")
    return text


def check_name(name: str, what: str = "name", *, limit: int = MAX_NAME) -> str:
    """A roster name: printable, bounded, and usable in NAME=VALUE options."""
    check_text(name, what, limit=limit)
    if name != name.strip():
        raise RuleViolation(f"the {what} {_shown(name)} starts or ends with a space; "
                            "give it without")
    if "=" in name:
        raise RuleViolation(f"the {what} {_shown(name)} holds '=', which options such as "
                            "--roll NAME=R use as a separator; pick another name")
    return name


def check_number(value: int, what: str, low: int, high: int) -> int:
    if not low <= value <= high:
        raise RuleViolation(f"{what} must be {low:,} to {high:,}, not {value:,}")
    return value


def check_square(square: tuple[int, int], what: str) -> None:
    x, y = square
    if abs(x) > MAX_COORDINATE or abs(y) > MAX_COORDINATE:
        raise RuleViolation(f"{what} {x},{y} is too far out; coordinates stay within "
                            f"±{MAX_COORDINATE:,}")


# What a command's field is checked with as the command is made: each runs a `check_*` helper,
# so the refusal is the same sentence and the same error (a RuleViolation, which pydantic lets
# through unchanged) as when the rules checked it.


def bounded(what: str, low: int, high: int) -> AfterValidator:
    """A whole number from `low` to `high`, named `what` in the refusal."""
    return AfterValidator(lambda value: check_number(value, what, low, high))


def named(what: str = "name", *, limit: int = MAX_NAME) -> AfterValidator:
    """A name (see `check_name`)."""
    return AfterValidator(lambda name: check_name(name, what, limit=limit))


def texted(what: str, *, limit: int = MAX_TEXT) -> AfterValidator:
    """A text such as a reason or a title (see `check_text`)."""
    return AfterValidator(lambda text: check_text(text, what, limit=limit))


def placed(what: str) -> AfterValidator:
    """A square within the coordinates Trek keeps (see `check_square`)."""
    def validate(square: Square) -> Square:
        check_square(square, what)
        return square
    return AfterValidator(validate)


# How many texts each event field type remembers as valid.
_VALID_KEPT = 1024


def _valid_text(limit: int) -> AfterValidator:
    # Texts already found valid under this limit: reading a long log meets the same names and
    # reasons over and over, and each would otherwise be checked character by character again.
    valid: set[str] = set()

    def validate(text: str) -> str:
        if text in valid:
            return text
        problem = text_problem(text, limit=limit)
        if problem is not None:
            raise ValueError(f"the text {_shown(text)} {problem}")
        if len(valid) < _VALID_KEPT:
            valid.add(text)
        return text
    return AfterValidator(validate)


# Pydantic types for event fields.
Name = Annotated[str, _valid_text(MAX_NAME)]
CampaignName = Annotated[str, _valid_text(MAX_CAMPAIGN_NAME)]
Text = Annotated[str, _valid_text(MAX_TEXT)]
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
SignedAmount = Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]
Level = Annotated[int, Field(ge=0, le=MAX_LEVEL)]
Points = Annotated[int, Field(ge=0, le=MAX_POINTS)]
Miles = Annotated[int, Field(ge=0, le=MAX_MILES)]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]


def refusal(error: ValidationError) -> RuleViolation:
    """A pydantic refusal of a new event as one sentence naming the field and the bound."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "a value"
    message = str(first["msg"])
    # pydantic's "Value error, the text ..." reads better without its prefix.
    message = message.removeprefix("Value error, ")
    return RuleViolation(f"{where}: {message}; nothing was recorded")
