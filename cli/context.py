"""What every command shares: the settings, the store it opened, and how it shows a record."""

from __future__ import annotations

from collections.abc import Callable

import click

from cli.options import Settings
from tracker.app import Documents, Trek, gm_from_env
from tracker.registry import RULESETS


def settings() -> Settings:
    return click.get_current_context().ensure_object(Settings)


def open_store(*, create: bool = False, writes: bool = True, preview: bool = False) -> Trek:
    """The store of the command; with `preview`, opened read-only to decide and store nothing."""
    ctx = click.get_current_context()
    s = settings()
    if s.kept is not None and not create:
        kept: Trek = s.kept(preview)
        s.opened.append(kept)
        return kept
    trek = Trek.open(s.db, rulesets=RULESETS, create=create, writable=writes and not preview,
                     gm=gm_from_env(s.gm), preview=preview)
    s.opened.append(trek)
    ctx.call_on_close(trek.close)
    return trek


def recorded(docs: Documents, ruleset: Callable[[], str]) -> None:
    """Show what was recorded: JSON, or a line each in the words of the campaign's ruleset
    (asked only when lines are shown)."""
    from cli import render

    if settings().json:
        render.emit_json(docs)
    else:
        render.print_events(docs, ruleset(), preview=settings().preview)


def record(action: Callable[[Trek, str | None], Documents]) -> None:
    """Record the event `action` decides, or with --preview only show it."""
    trek = open_store(preview=settings().preview)
    campaign = settings().campaign
    docs = action(trek, campaign)
    recorded(docs, lambda: _ruleset(trek, campaign, docs))


def _ruleset(trek: Trek, campaign: str | None, docs: Documents) -> str:
    """The ruleset recorded events are worded in: a campaign's first event names it (a branch,
    which may leave the store with more than one campaign), else the campaign's own."""
    for doc in docs:
        if doc["type"] == "CampaignStarted":
            return str(doc["ruleset"])
    return trek.ruleset_of(campaign)
