"""An event recorded while the read models are left behind it, as when a process stops between
the append and their update: the next command, or read, has to fold that event in."""

from __future__ import annotations

from rulesets import RULESETS

from domain.ruleset import Command
from tracker.app import Trek


def recorded_unfolded(db: str, command: Command) -> list[str]:
    """Record `command` in the store `db` with every way of bringing the read models up to it
    failing; the warnings the command gave."""
    with Trek.open(db, rulesets=RULESETS, gm="test-gm") as trek:
        def fail(*_args: object) -> int:
            raise OSError("stopped")

        trek.projector.fold_appended = fail  # type: ignore[method-assign]
        trek.projector.catch_up = fail  # type: ignore[method-assign]
        trek.projector.rebuild = fail  # type: ignore[method-assign]
        trek.handle(None, command)
        return list(trek.warnings)
