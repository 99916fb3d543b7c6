"""The one composition root: `bootstrap(db, ...)` builds what a front-end plays with.

It is handed the rulesets (the registry's entries: `cli/registry.py`'s, or a test's) and builds,
each once and only when first needed, the registry the tracker plays, the `Trek` of the store,
its queries, each ruleset's command-line part (`CommandLine`, from the entry's loader) and the
click commands extended by them. Click gets it as `ctx.obj.root`, `trek shell` hands its own to
every line, and the server keeps one on `app.state.root`. Nothing else builds a registry, and
no front-end finds a ruleset's part by a module or attribute name.

This module is read by every command (`trek --help` too): it imports nothing heavy, and a
`trek status` that reads the kept document opens no `Trek` and loads no registry.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

import click

from cli.registry import ENTRIES, Entry, build_registry

if TYPE_CHECKING:
    from cli.render import AuditSection, Describe
    from cli.ruleset_line import CommandLine
    from cli.ruleset_options import RulesetOptions
    from domain.maps import MapSection
    from domain.ruleset import Registry
    from tracker.app import Trek
    from tracker.opening import MemoryStores
    from tracker.queries import Queries


# A `trek` process makes most of what it will ever hold as it starts: the modules, classes and
# functions of the command it runs. Python's cyclic collector walked all of that again and
# again while it was made (about 16 ms of a recording command) to free some hundreds of objects.
# `cli.main.main` holds the collector off as the process starts; the first store opened, where
# start-up is over, sets what it made aside for good (`gc.freeze`) and lets the collector run
# for the work that follows (a replay, a plan, a server's hours). Callers inside another
# program (the tests) never hold it off, and nothing here changes for them.
_starting = False


def starting() -> None:
    """The process starts: no cyclic collection until `started`."""
    global _starting
    _starting = True
    gc.disable()


def started() -> None:
    """Start-up is over (a store is open): what it made is left out of every later
    collection, and the collector runs again. Once a process; only after `starting`."""
    global _starting
    if _starting:
        _starting = False
        gc.freeze()
        gc.enable()


class Root:
    """What one program (a command, a shell, a server) plays with: built by `bootstrap`."""

    def __init__(self, db: str | None, entries: tuple[Entry, ...],
                 registry: Callable[[], Registry], gm: str | None = None) -> None:
        # The store a shell or a server opens; a command names its own when it opens it
        # (its --db is read after the root is made).
        self.db = db
        self.gm = gm
        self.entries = entries
        self._registry = registry
        self._lines: dict[str, CommandLine | None] = {}
        self._log_lines: dict[str, Mapping[str, Describe]] = {}
        self._reader: Trek | None = None
        # The click commands with the rulesets' parts built in, by name, made when first asked
        # for (cli/main.py's `TrekGroup`).
        self.commands: dict[str, click.Command] = {}
        # Whether those of cli/commands.py are among them yet.
        self.mounted = False

    # -- the rulesets -----------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """The rulesets by name, in order (the first the default of `init --ruleset`)."""
        return [entry.name for entry in self.entries]

    @cached_property
    def registry(self) -> Registry:
        """The registry the tracker plays (built on first use; no ruleset loaded by it)."""
        return self._registry()

    def _entry(self, ruleset: str) -> Entry | None:
        return next((entry for entry in self.entries if entry.name == ruleset), None)

    def line(self, ruleset: str) -> CommandLine | None:
        """One ruleset's command-line part, loading only it; None when it adds nothing (or
        is not one of these)."""
        if ruleset not in self._lines:
            entry = self._entry(ruleset)
            self._lines[ruleset] = (entry.command_line() if entry is not None
                                    and entry.command_line is not None else None)
        return self._lines[ruleset]

    def log_lines(self, ruleset: str) -> Mapping[str, Describe]:
        """How `ruleset` words its events' log lines, by event type: from the entry's own
        module where it names one (loading no command), else its command-line part's. Kept
        once found: a log asks for every line it prints."""
        if ruleset not in self._log_lines:
            entry = self._entry(ruleset)
            if entry is not None and entry.log_lines is not None:
                self._log_lines[ruleset] = entry.log_lines()
            else:
                line = self.line(ruleset)
                self._log_lines[ruleset] = line.summaries if line is not None else {}
        return self._log_lines[ruleset]

    def rewords(self, ruleset: str, kind: str) -> bool:
        """Whether `ruleset`'s command-line part words the log line of the shared event
        `kind` itself (known without loading it)."""
        entry = self._entry(ruleset)
        return entry is not None and kind in entry.rewords

    def lines(self) -> list[tuple[str, CommandLine]]:
        """Every ruleset's command-line part (those that have one), in order."""
        return [(entry.name, line) for entry in self.entries
                if (line := self.line(entry.name)) is not None]

    @cached_property
    def options(self) -> list[tuple[str, RulesetOptions]]:
        """Every ruleset's options on the shared commands (those that have some), in order,
        loading no ruleset's command line."""
        return [(entry.name, entry.options()) for entry in self.entries
                if entry.options is not None]

    def command_summaries(self) -> Iterable[tuple[str, str]]:
        """The rulesets' own top-level commands and their one-line help, read off the entries
        (nothing loaded)."""
        return [pair for entry in self.entries for pair in entry.commands]

    @cached_property
    def opening_words(self) -> frozenset[str]:
        """The words the rulesets' own refusals open with."""
        return frozenset(word for _, line in self.lines() for word in line.opening_words)

    @cached_property
    def audit_sections(self) -> Mapping[str, AuditSection]:
        """How each audit section a ruleset names is shown (the first ruleset naming it)."""
        found: dict[str, AuditSection] = {}
        for _, line in self.lines():
            for name, section in line.audit_sections.items():
                found.setdefault(name, section)
        return found

    @cached_property
    def route_marks(self) -> Mapping[str, Any]:
        """The route-picture marker styles the rulesets add, by kind."""
        found: dict[str, Any] = {}
        for _, line in self.lines():
            for kind, style in line.route_marks.items():
                found.setdefault(kind, style)
        return found

    @cached_property
    def plan_policy_words(self) -> Mapping[str, Callable[[Any], str]]:
        """How `trek plan` names each ruleset's policy option chosen, by option."""
        found: dict[str, Callable[[Any], str]] = {}
        for _, line in self.lines():
            for name, words in line.plan_policy_words.items():
                found.setdefault(name, words)
        return found

    def map_section(self, key: str) -> MapSection | None:
        """The ruleset map table whose readings a map keeps under `key`."""
        return self.registry.map_section(key)

    # -- the store --------------------------------------------------------------------------

    def open(self, db: str | None = None, *, create: bool = False, writable: bool = True,
             gm: str | None = None, preview: bool = False,
             memory: MemoryStores | None = None) -> Trek:
        """A `Trek` over `db` (the root's own store when None), playing these rulesets."""
        from tracker.app import Trek

        location = db if db is not None else self.db
        if location is None:
            raise click.UsageError("no store was named; give --db")
        trek = Trek.open(location, rulesets=self.registry, create=create, writable=writable,
                         gm=gm if gm is not None else self.gm, memory=memory, preview=preview)
        started()
        return trek

    def reader(self) -> Trek:
        """The root's store opened to read, once, for as long as the root lives."""
        if self._reader is None:
            self._reader = self.open(writable=False)
        return self._reader

    @property
    def queries(self) -> Queries:
        """The reads of the root's store (tracker/queries.py), opened on first use."""
        return self.reader().queries

    def close(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()


def bootstrap(db: str | None = None, *, rulesets: Iterable[Entry] = ENTRIES,
              gm: str | None = None) -> Root:
    """The composition root of a program over the store `db` playing `rulesets`: the only
    caller of the registry's builder. Nothing is loaded or opened until it is used."""
    entries = tuple(rulesets)
    return Root(db, entries, lambda: build_registry(entries), gm=gm)


# The root a page or a picture drawn outside a command reads the rulesets' words from: the
# server's (`use`), else one over the shipped rulesets.
_SERVING: list[Root] = []


def use(root: Root) -> Root:
    """Make `root` the one read outside any command (the server's, while it serves)."""
    _SERVING[:] = [root]
    return root


def current() -> Root:
    """The root of the command running (the click context's), else the server's."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        from cli.options import Settings

        settings = ctx.find_object(Settings)
        if settings is not None:
            return root_of(settings)
    if not _SERVING:
        use(bootstrap())
    return _SERVING[0]


def root_of(settings: Any) -> Root:
    """The root of a command's settings: the one it was handed (by the shell, the server or a
    test), else one made now over the shipped rulesets."""
    if settings.root is None:
        kept = settings.kept
        if kept is None:
            settings.root = bootstrap()
        else:
            # The stores kept from one command to the next are opened by the same root.
            kept.root = kept.root or bootstrap()
            settings.root = kept.root
    root: Root = settings.root
    return root
