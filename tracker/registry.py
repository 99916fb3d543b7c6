"""The rulesets this release plays, one line each: the only module that names them all.

Each is deferred: a command imports its campaign's ruleset and no other. `ENTRIES` is read
without importing anything of Trek's (`trek --help` lists the rulesets' commands from it);
`build_registry` makes the registry of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.deferred import Deferred

if TYPE_CHECKING:
    from domain.ruleset import Registry

# The first is the default of `trek init --ruleset` and `trek map import --ruleset`.
ENTRIES = (
    Deferred("besm", "domain.besm", "Besm", command_line="cli.besm", commands=(
        ("forage", "Give up a square of today's movement to hunt and forage."),
        ("forced-march", "Push on for the base movement again, at a cost in provisions and "
                         "fuel."),
        ("night-travel", "Travel on after dark (once a day)."),
        ("repair", "Spend the day restoring the levels a mount or vehicle lost to strain."),
        ("shortcut", "Try a shortcut from the map (one attempt per shortcut per day)."),
    )),
    Deferred("cypher", "domain.cypher", "Cypher", command_line="cli.cypher"),
    Deferred("gurps", "domain.gurps", "Gurps", command_line="cli.gurps"),
    Deferred("shadowrun", "domain.shadowrun", "Shadowrun", command_line="cli.shadowrun"),
    Deferred("movepoints", "domain.movepoints", "Movepoints", command_line="cli.movepoints"),
)


def command_lines() -> list[tuple[str, str]]:
    """Each ruleset's name and command-line module (those that have one), in order, read off
    the entries: no ruleset is loaded."""
    return [(entry.name, entry.command_line) for entry in ENTRIES
            if entry.command_line is not None]


def build_registry() -> Registry:
    """The registry of every ruleset above, none of them loaded yet. The command line's
    composition root (`cli/context.py`'s `rulesets`) builds it once for the whole program and
    hands it to every store and page; nothing else builds one."""
    from domain.encounter import ENCOUNTER_EVENTS
    from domain.events import CORE_EVENTS
    from domain.ruleset import Registry

    return Registry(shared=CORE_EVENTS + ENCOUNTER_EVENTS, rulesets=ENTRIES)
