"""The rulesets this release plays, one line each: the only module that names them all.

Each line holds loaders, functions whose bodies import the ruleset's rules, its command-line
part and, where it keeps them apart, its events' log lines and its options on the shared
commands (plain imports, typed, never a module or attribute name looked up at run time), so a
command loads its campaign's ruleset and no other. Reading `ENTRIES` imports nothing of Trek's
(`trek --help` lists the rulesets' commands from it). The composition root (`cli/bootstrap.py`)
is handed these entries, or others (a test's), and builds the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from cli.render import Describe
    from cli.ruleset_line import CommandLine
    from cli.ruleset_options import RulesetOptions
    from domain.deferred import Deferred
    from domain.events import TrekEvent
    from domain.ruleset import Registry, Ruleset


class Entry(NamedTuple):
    """One ruleset as the release offers it: its rules and its command-line part, each made
    by a function the first time a command needs it."""

    name: str
    # The package its events live under (matched against stored topics, never imported by
    # this name).
    package: str
    rules: Callable[[], Ruleset]
    command_line: Callable[[], CommandLine] | None = None
    # The top-level commands its command line adds, each with the first paragraph of its
    # help, for `trek --help` without loading it (checked against the commands by the tests).
    commands: tuple[tuple[str, str], ...] = ()
    # The shared events whose log line its command line words itself (its `summaries` that
    # are also shared ones; checked by the tests): any other shared event's line is printed
    # without loading the command line.
    rewords: frozenset[str] = frozenset()
    # Its events' log lines (its command line's `summaries`) from a module of their own, so a
    # recorded event's line loads none of its commands; None: read off the command line.
    log_lines: Callable[[], Mapping[str, Describe]] | None = None
    # Its options on the shared commands (`roster add-character`, `encounter move`, ...), from
    # a module of their own: parsing those commands loads no ruleset's command line.
    options: Callable[[], RulesetOptions] | None = None

    def deferred(self) -> Deferred:
        from domain.deferred import Deferred

        return Deferred(self.name, self.package, self.rules)


def _besm() -> Ruleset:
    from domain.besm.rules import Besm

    return Besm()


def _besm_line() -> CommandLine:
    from cli.besm import COMMAND_LINE

    return COMMAND_LINE


def _besm_options() -> RulesetOptions:
    from cli.besm_options import OPTIONS

    return OPTIONS


def _besm_log_lines() -> Mapping[str, Describe]:
    from cli.besm_lines import SUMMARIES

    return SUMMARIES


def _cypher() -> Ruleset:
    from domain.cypher.rules import Cypher

    return Cypher()


def _cypher_line() -> CommandLine:
    from cli.cypher import COMMAND_LINE

    return COMMAND_LINE


def _cypher_options() -> RulesetOptions:
    from cli.cypher_options import OPTIONS

    return OPTIONS


def _cypher_log_lines() -> Mapping[str, Describe]:
    from cli.cypher_lines import SUMMARIES

    return SUMMARIES


def _gurps() -> Ruleset:
    from domain.gurps.rules import Gurps

    return Gurps()


def _gurps_line() -> CommandLine:
    from cli.gurps import COMMAND_LINE

    return COMMAND_LINE


def _gurps_log_lines() -> Mapping[str, Describe]:
    from cli.gurps_lines import SUMMARIES

    return SUMMARIES


def _gurps_options() -> RulesetOptions:
    from cli.gurps_options import OPTIONS

    return OPTIONS


def _shadowrun() -> Ruleset:
    from domain.shadowrun.rules import Shadowrun

    return Shadowrun()


def _shadowrun_line() -> CommandLine:
    from cli.shadowrun import COMMAND_LINE

    return COMMAND_LINE


def _shadowrun_log_lines() -> Mapping[str, Describe]:
    from cli.shadowrun_lines import SUMMARIES

    return SUMMARIES


def _shadowrun_options() -> RulesetOptions:
    from cli.shadowrun_options import OPTIONS

    return OPTIONS


def _movepoints() -> Ruleset:
    from domain.movepoints.rules import Movepoints

    return Movepoints()


def _movepoints_line() -> CommandLine:
    from cli.movepoints import COMMAND_LINE

    return COMMAND_LINE


def _movepoints_log_lines() -> Mapping[str, Describe]:
    from cli.movepoints_lines import SUMMARIES

    return SUMMARIES


def _movepoints_options() -> RulesetOptions:
    from cli.movepoints_options import OPTIONS

    return OPTIONS


# The first is the default of `trek init --ruleset` and `trek map import --ruleset`.
ENTRIES = (
    Entry("besm", "domain.besm", _besm, _besm_line, commands=(
        ("forage", "Give up a square of today's movement to hunt and forage."),
        ("forced-march", "Push on for the base movement again, at a cost in provisions and "
                         "fuel."),
        ("night-travel", "Travel on after dark (once a day)."),
        ("repair", "Spend the day restoring the levels a mount or vehicle lost to strain."),
        ("shortcut", "Try a shortcut from the map (one attempt per shortcut per day)."),
    ), log_lines=_besm_log_lines, options=_besm_options),
    Entry("cypher", "domain.cypher", _cypher, _cypher_line, log_lines=_cypher_log_lines,
          options=_cypher_options),
    Entry("gurps", "domain.gurps", _gurps, _gurps_line, log_lines=_gurps_log_lines,
          options=_gurps_options),
    Entry("shadowrun", "domain.shadowrun", _shadowrun, _shadowrun_line,
          log_lines=_shadowrun_log_lines, options=_shadowrun_options),
    Entry("movepoints", "domain.movepoints", _movepoints, _movepoints_line,
          rewords=frozenset({"CombatantEntered"}), log_lines=_movepoints_log_lines,
          options=_movepoints_options),
)


def build_registry(entries: Iterable[Entry]) -> Registry:
    """The registry of these rulesets, none of them loaded yet. Only the composition root
    (`cli/bootstrap.py`'s `bootstrap`) calls this; it hands the registry to every store and
    page it opens."""
    from domain.events import CORE_EVENTS
    from domain.ruleset import Registry

    return Registry(shared=CORE_EVENTS,
                    shared_parts={"domain.encounter": _encounter_events,
                                  "domain.encounter_changes": _encounter_changes,
                                  "domain.sessions": _session_events,
                                  "domain.roster_events": _roster_events,
                                  "domain.parties": _party_events},
                    rulesets=[entry.deferred() for entry in entries])


# The shared events kept apart from `domain.events`, each part loaded when a campaign's log
# first holds one of its events: the sessions', the roster's beyond its first characters and
# supplies, the parties', and the encounter's (its changes apart from its opening, entries and
# rounds). A topic under `domain.events` not yet held tries them in this order.


def _session_events() -> tuple[type[TrekEvent], ...]:
    from domain.sessions import EVENTS

    return EVENTS


def _roster_events() -> tuple[type[TrekEvent], ...]:
    from domain.roster_events import EVENTS

    return EVENTS


def _party_events() -> tuple[type[TrekEvent], ...]:
    from domain.parties import EVENTS

    return EVENTS


def _encounter_events() -> tuple[type[TrekEvent], ...]:
    from domain.encounter import ENCOUNTER_EVENTS

    return ENCOUNTER_EVENTS


def _encounter_changes() -> tuple[type[TrekEvent], ...]:
    from domain.encounter_changes import EVENTS

    return EVENTS
