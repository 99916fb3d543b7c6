"""What every command shares: the settings, the store it opened, and how it shows a record."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from cli.options import Settings

if TYPE_CHECKING:
    from cli.bootstrap import Root
    from domain.ruleset import Command, Registry
    from tracker.app import Documents, Trek
    from tracker.mapformats.picture import Picture
    from tracker.opening import MemoryStores

# The tracker, the rulesets and the models load when a store is first opened: a command-line
# module that imports this one (a ruleset's) stays light for what only reads a kept document.


def settings() -> Settings:
    return click.get_current_context().ensure_object(Settings)


def root() -> Root:
    """The composition root of the command (cli/bootstrap.py): its rulesets, its stores."""
    from cli.bootstrap import root_of

    return root_of(settings())


def rulesets() -> Registry:
    """The registry of the rulesets the command plays, from its composition root."""
    return root().registry


class KeptStores:
    """The stores `trek shell` keeps open from one line to the next (each opened once, the
    way its first command asked: writable or not, previewing or not, by which GM), closed when
    the shell ends."""

    def __init__(self, root: Root | None = None) -> None:
        self.treks: dict[tuple[str, bool, str, bool], Trek] = {}
        # A `memory:` store lasts as long as the shell.
        self.memory: MemoryStores = _memory_stores()
        # The composition root every line plays with (the shell's or the server's).
        self.root = root

    def open(self, db: str, *, create: bool, writes: bool, gm: str,
             preview: bool = False) -> Trek:
        key = (db, writes, gm, preview)
        trek = self.treks.get(key)
        if trek is None:
            from cli.bootstrap import bootstrap

            self.root = self.root or bootstrap()
            trek = self.root.open(db, create=create, writable=writes and not preview, gm=gm,
                                  memory=self.memory, preview=preview)
            self.treks[key] = trek
        else:
            # What an earlier line appended was told then; this line tells only its own.
            trek.appended.clear()
        return trek

    def close(self) -> None:
        treks, self.treks = list(self.treks.values()), {}
        for trek in treks:
            trek.close()


def open_store(*, create: bool = False, writes: bool = True, preview: bool = False) -> Trek:
    """The store of the command; with `preview`, opened read-only to decide and store nothing."""
    from tracker.app import gm_from_env

    ctx = click.get_current_context()
    s = settings()
    if isinstance(s.kept, KeptStores):
        trek = s.kept.open(s.db, create=create, writes=writes, gm=gm_from_env(s.gm),
                           preview=preview)
    else:
        trek = root().open(s.db, create=create, writable=writes and not preview,
                           gm=gm_from_env(s.gm), preview=preview)
        ctx.call_on_close(trek.close)
    s.opened.append(trek)
    return trek


def _memory_stores() -> MemoryStores:
    from tracker.opening import MemoryStores

    return MemoryStores()


def recorded(docs: Documents, ruleset: Callable[[], str]) -> None:
    """Show what was recorded: JSON, or a line each in the words of the campaign's ruleset
    (asked only when lines are shown)."""
    from cli import render

    if settings().json:
        render.emit_json(docs)
    else:
        render.print_events(docs, ruleset(), preview=settings().preview)


class Parsed(Exception):
    """Raised by `record` while words are only being read (cli/parse.py): the command they
    make, handed back before any store is opened."""

    def __init__(self, command: Command) -> None:
        super().__init__(command.what)
        self.command = command


def record(command: Command | Callable[[Trek, str | None], Command],
           picture: Picture | None = None) -> None:
    """Hand `command` to the one door (`Trek.handle`), or with --preview only show the event
    it would record. A command that needs the campaign to be built (a battle map read with
    its ruleset's legend) comes as a function of the store and the campaign; the `picture`
    its map names is kept in the store with it.

    While words are only being read (cli/parse.py), the command is handed back instead."""
    if settings().parsing:
        if callable(command):
            raise RuntimeError("a command of the table needs no store to be made")
        raise Parsed(command)
    trek = open_store(preview=settings().preview)
    campaign = settings().campaign
    if callable(command):
        command = command(trek, campaign)
    with trek.picture_kept(picture):
        docs = trek.handle(campaign, command, party=settings().party)
    recorded(docs, lambda: _ruleset(trek, campaign, docs))


def _ruleset(trek: Trek, campaign: str | None, docs: Documents) -> str:
    """The ruleset recorded events are worded in: a campaign's first event names it (a branch,
    which may leave the store with more than one campaign), else the campaign's own."""
    for doc in docs:
        if doc["type"] == "CampaignStarted":
            return str(doc["ruleset"])
    last = trek.last_recorded
    if last is not None and last[0] == campaign:
        # The campaign the events were just recorded in: its ruleset is known already.
        return last[2]
    return trek.queries.ruleset_of(campaign)
