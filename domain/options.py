"""What `roster add-character` and `encounter add` hand the campaign's ruleset to decide: a
character's stats. A field of those commands (`AddCharacter`, `EnterCombatant`), it loads with
them, so a command that gives none defines none."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CharacterOptions:
    """Everything `roster add-character` may be given; a ruleset takes what it uses."""

    name: str
    skills: Mapping[str, int] = field(default_factory=dict)
    attributes: Mapping[str, int] = field(default_factory=dict)
    health_max: int | None = None
    energy_max: int | None = None
    # The ruleset's own stat options, by option name; its `character` decides the `stats` a
    # character keeps, and `options_of` gives them back from a recorded character.
    extra: Mapping[str, Any] = field(default_factory=dict)
