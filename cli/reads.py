"""The read commands of the table as data: what `trek status`, `log`, `encounter status`, `map
show`, `audit`, `diff` and `rules show` ask, and the document each answers (what `--json`
prints).

A query's fields are its command's parameters, by name (cli/parse.py makes one from the words
without running the command); `answer` reads it through the tracker's queries.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from tracker.points import Point

if TYPE_CHECKING:
    from tracker.app import Trek


@dataclass(frozen=True)
class Query(ABC):
    """A read, as data: no store is named; `answer` is given the store and the campaign."""

    what: ClassVar[str] = "query"
    # The command's parameters that only choose how a terminal shows the answer.
    shown: ClassVar[frozenset[str]] = frozenset()

    @abstractmethod
    def answer(self, trek: Trek, slug: str | None) -> Any:
        """The document `--json` prints for this read of campaign `slug`."""


@dataclass(frozen=True)
class Status(Query):
    """`trek status [--as-of POINT] [--party NAME]`."""

    what: ClassVar[str] = "status"

    as_of: Point | None = None
    party: str | None = None

    def answer(self, trek: Trek, slug: str | None) -> Any:
        if self.as_of is None:
            return trek.queries.status(slug, party=self.party)
        return trek.queries.status_at(slug, self.as_of, party=self.party)


@dataclass(frozen=True)
class Log(Query):
    """`trek log [--day N] [--session N] [--from SEQ] [--last N] [--party NAME]`."""

    what: ClassVar[str] = "log"
    shown: ClassVar[frozenset[str]] = frozenset({"no_pager"})

    day_number: int | None = None
    session: int | None = None
    since: int | None = None
    last: int | None = None
    party: str | None = None

    def answer(self, trek: Trek, slug: str | None) -> Any:
        from projections.logpages import LogFilter

        # The party an event acted on is in its document, not the log's index: with a party
        # the rows are picked as they are read, and `last` picks among those.
        selection = LogFilter(day=self.day_number, session=self.session, since=self.since,
                              last=None if self.party is not None else self.last)
        entries = trek.queries.log_stream(slug, selection, targets=False).entries
        if self.party is None:
            return list(entries)
        return list(of_party(entries, self.party, self.last))


def of_party(entries: Iterable[Mapping[str, Any]], party: str, last: int | None
             ) -> Iterable[Mapping[str, Any]]:
    """The entries of events that acted on `party` (the `last` newest of them, if given), as
    they come when all are wanted."""
    picked = (entry for entry in entries if entry.get("party") == party)
    if last is None:
        return picked
    from collections import deque

    return list(deque(picked, maxlen=last))


@dataclass(frozen=True)
class EncounterStatus(Query):
    """`trek encounter status`: the open encounter, None with none open."""

    what: ClassVar[str] = "encounter status"

    def answer(self, trek: Trek, slug: str | None) -> Any:
        return trek.queries.encounter_status(slug)


@dataclass(frozen=True)
class MapShow(Query):
    """`trek map show [--as-of POINT] [--session N] [--party NAME]`: the map and the route
    document."""

    what: ClassVar[str] = "map show"

    as_of: Point | None = None
    session: int | None = None
    party: str | None = None

    def answer(self, trek: Trek, slug: str | None) -> Any:
        seq = None
        if self.as_of is not None and self.as_of.kind != "now":
            seq = trek.queries.seq_of(slug, self.as_of)
        route = trek.queries.route(slug, as_of=seq, session=self.session, party=self.party)
        return route_document(route)


def route_document(route: Any) -> dict[str, Any]:
    """What `map show --json` prints: the map is the document's own `map`, and the route
    does not repeat it."""
    return {"campaign": route["campaign"], "position": route["position"],
            "party": route["party"], "parties": route["parties"], "map": route["map"],
            "route": {k: v for k, v in route.items() if k != "map"}}


@dataclass(frozen=True)
class Audit(Query):
    """`trek audit [--session N]`."""

    what: ClassVar[str] = "audit"

    session: int | None = None

    def answer(self, trek: Trek, slug: str | None) -> Any:
        return trek.queries.audit(slug, self.session)


@dataclass(frozen=True)
class Diff(Query):
    """`trek diff A [B]`."""

    what: ClassVar[str] = "diff"

    a: Point
    b: Point

    def answer(self, trek: Trek, slug: str | None) -> Any:
        return trek.queries.diff(slug, self.a, self.b)


@dataclass(frozen=True)
class RulesShow(Query):
    """`trek rules show`: the campaign's house rules."""

    what: ClassVar[str] = "rules show"

    def answer(self, trek: Trek, slug: str | None) -> Any:
        return trek.queries.rules(slug)


QUERIES: tuple[type[Query], ...] = (Status, Log, EncounterStatus, MapShow, Audit, Diff,
                                    RulesShow)


def _mark_status() -> None:
    """`trek status` is the query Status. It lives in cli/main.py, which loads no other module
    of the command line so that `trek --help` and `trek status` start quickly: marked here."""
    from cli.main import status
    from cli.options import reads

    assert status.callback is not None
    reads(lambda: Status)(status.callback)


_mark_status()
