"""Reading a store's hash chains: the stored rows of each campaign, its kept head and its
snapshots, walked without decoding events (see tracker/chain.py for the walk itself)."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Self
from uuid import UUID

from domain.campaign import campaign_id, snapshot_problem
from domain.events import CampaignStarted
from domain.links import stored_bytes
from projections import readmodels
from projections.db import has_current_schema
from projections.logpages import IndexDiffers, kind_of
from projections.projector import ChainBroken, Projector
from tracker.application import TrekApplication
from tracker.chain import ChainCheck, ChainWalk, ChainWalks, check_chain
from tracker.mapper import row_pages
from tracker.stores import Location, store_errors

if TYPE_CHECKING:
    import subprocess

# How many snapshots are read at once when their digests are checked.
SNAPSHOT_PAGE = 20
HEAD_MISSING = ("the chain head Trek keeps for its newest event was deleted behind Trek's back, "
                "so an edit to that event could pass unseen")


class ChainReader:
    """The chain of every campaign in one store, as it now stands on disk."""

    def __init__(self, app: TrekApplication, projector: Projector, location: Location,
                 page: int = 1000) -> None:
        self.app = app
        self.projector = projector
        self.location = location
        self.page = page

    def check(self, cid: UUID, kinds: list[str] | None = None) -> ChainCheck:
        """The walk of one campaign's chain, then of its snapshots' digests; `kinds` is given
        each walked event's kind (its class's name), for `index_differences`."""
        check = check_chain(self._stored_rows(cid, kinds), str(cid),
                            known=self._known_head(cid))
        if check.intact and (damage := self._snapshot_problem(cid)) is not None:
            check = ChainCheck(check.events, damage[0], damage[1])
        if check.intact and check.events and self.projector.head_missing(str(cid)):
            check = ChainCheck(check.events, check.events, HEAD_MISSING)
        return check

    def logged_campaigns(self, in_memory: Callable[[], list[str]]) -> list[str]:
        """The slug of every campaign the log holds, whatever the read models say.

        A store in memory has no table to read; nothing outside this process can have changed
        it, so `in_memory` (the read models' list) answers.
        """
        table = getattr(self.app.recorder, "events_table_name", None)
        if not isinstance(table, str):
            return in_memory()
        slugs = []
        with store_errors(self.location):
            ids = [row[0] for row in self.projector.db.query(
                f"SELECT DISTINCT originator_id FROM {table}")]
        for originator in ids:
            cid = originator if isinstance(originator, UUID) else UUID(str(originator))
            first = list(self.app.events.get(cid, lte=1))
            if first and isinstance(first[0], CampaignStarted):
                slugs.append(first[0].slug)
        return sorted(slugs)

    def lost_campaigns(self, logged: list[str]) -> list[tuple[str, UUID]]:
        """The campaigns Trek keeps a chain head for (or read models of) of which the log
        holds no event at all, each as (its slug as the read models keep it, else its id; its
        id): every event deleted behind Trek's back, which is damage, never no campaign.
        `logged` are the slugs `logged_campaigns` found in the log. A store in memory has
        none: nothing outside this process can have changed it."""
        if not isinstance(getattr(self.app.recorder, "events_table_name", None), str):
            return []
        db = self.projector.db
        with store_errors(self.location):
            heads = readmodels.known_heads(db)
            slugs = ({str(UUID(str(cid))): str(slug) for cid, slug in db.query(
                "SELECT campaign_id, slug FROM trek_view_campaigns")}
                if has_current_schema(db) else {})
        held = {str(campaign_id(slug)) for slug in logged}
        return [(slugs.get(cid, cid), UUID(cid)) for cid in sorted(heads) if cid not in held]

    def _snapshot_problem(self, cid: UUID) -> tuple[int, str] | None:
        """The first snapshot of a campaign that was changed after it was taken, if any.

        Each is read as the JSON it is stored as (its state and the digest taken with it);
        building the snapshot model would validate the whole state again for nothing.
        """
        snapshots = self.app.snapshots
        if snapshots is None:
            return None
        after: int | None = None
        while True:
            # A page at a time: a long campaign's snapshots each hold its whole state, and
            # all of them at once would take memory in proportion to its length.
            with store_errors(self.location):
                rows = snapshots.recorder.select_events(cid, gt=after, limit=SNAPSHOT_PAGE)
            for row in rows:
                version = row.originator_version
                data = stored_bytes(row.state)
                if _digest_holds(data):
                    continue
                try:
                    stored = json.loads(data)
                    state, digest = stored["state"], stored.get("digest")
                    if not isinstance(state, dict) or not isinstance(digest, str | None):
                        raise TypeError(version)
                except (ValueError, KeyError, TypeError):
                    return version, f"the snapshot at event {version} cannot be read any more"
                problem = snapshot_problem(version, state, digest)
                if problem is not None:
                    return version, problem
            if len(rows) < SNAPSHOT_PAGE:
                return None
            after = rows[-1].originator_version

    def known_heads(self) -> dict[str, tuple[int, str]]:
        """`_known_head` of every campaign the read models know, read before a rebuild
        empties them."""
        with store_errors(self.location):
            return readmodels.known_heads(self.projector.db)

    def _known_head(self, cid: UUID) -> tuple[int, str] | None:
        """The chain's head as kept when the newest event was folded (or, in a store from
        before heads were kept, as its read models last saw it)."""
        head = self.projector.chain_head(str(cid))
        if head is None:
            stored = self.projector.stored_view(str(cid))
            head = (stored.events, stored.last_hash) if stored else None
        return head

    def index_differences(self, cid: UUID, kinds: list[str]) -> list[str]:
        """Where the log's index of a campaign names another kind of event than the log holds
        (`kinds`, the kind of event 1, 2, ... as the chain walk read them), or an event the log
        does not hold: the index's rows read a page at a time, a sentence for the first."""
        after = 0
        while True:
            with store_errors(self.location):
                rows = self.projector.db.query(
                    "SELECT seq, type FROM trek_view_entries WHERE campaign_id = ? AND seq > ? "
                    "ORDER BY seq LIMIT ?", (str(cid), after, self.page))
            for seq, indexed in rows:
                after = int(seq)
                if after > len(kinds):
                    return [f"the log's index holds an event {after}, which the log does not"]
                if kinds[after - 1] != indexed:
                    return [str(IndexDiffers(after, str(indexed), kinds[after - 1]))]
            if len(rows) < self.page:
                return []

    def _stored_rows(self, cid: UUID, kinds: list[str] | None = None
                     ) -> Iterator[tuple[int, str, bytes]]:
        select = row_pages(self.app.recorder, cid)
        after = 0
        # One string per kind, however many events share it.
        named: dict[str, str] = {}
        while True:
            with store_errors(self.location):
                rows = select(after, None, self.page)
            if not rows:
                return
            for row in rows:
                if kinds is not None:
                    kind = kind_of(row.topic)
                    kinds.append(named.setdefault(kind, kind))
                yield row.originator_version, row.topic, stored_bytes(row.state)
            after = rows[-1].originator_version


# A snapshot as Trek stores it: canonical JSON, its keys sorted: the digest, the state, then
# when it was taken and its topic.
_DIGEST_KEY = b'{"digest":"'
_STATE_KEY = b'","state":'
_STATE_AT = len(_DIGEST_KEY) + 64 + len(_STATE_KEY)
_AFTER_STATE = re.compile(rb',"timestamp":"[^"\\]*","topic":"[^"\\]*"\}')


def _digest_holds(data: bytes) -> bool:
    """True when a snapshot's stored JSON is its digest, its state and the two fields after
    it, and the digest is that of the state's bytes as they stand: the state is then the one
    the digest was taken of (`snapshot_problem` finds nothing), seen without parsing it and
    writing it out again. Any other row is checked the general way."""
    end = data.rfind(b',"timestamp":"')
    return (end > _STATE_AT and data.startswith(_DIGEST_KEY)
            and data[_STATE_AT - len(_STATE_KEY):_STATE_AT] == _STATE_KEY
            and _AFTER_STATE.fullmatch(data, end) is not None
            and hashlib.sha256(data[_STATE_AT:end]).hexdigest().encode()
            == data[len(_DIGEST_KEY):_STATE_AT - len(_STATE_KEY)])


class RebuildLinks:
    """The hash chains checked while a rebuild folds the rows, so the log is read once.

    Any break (or a snapshot changed behind Trek's back) stops the rebuild with `ChainBroken`;
    its transaction is rolled back and the caller walks the chains again to say where. The
    checks are `ChainWalk`'s, the walk `trek verify` makes.
    """

    def __init__(self, reader: ChainReader) -> None:
        self.reader = reader
        self.heads = reader.known_heads()
        # Campaigns whose kept head was deleted (read before the rebuild empties the views).
        self.headless = {cid for cid in self.heads
                         if reader.projector.head_missing(cid)}
        self.chains = ChainWalks(self.heads)

    def follow(self, originator: Any, seq: int, topic: str, data: bytes, linked: object,
               chain: int) -> None:
        broken = self.chains.step(originator, seq, topic, data, linked, chain)
        if broken is not None:
            raise ChainBroken(broken)

    def walked_elsewhere(self) -> bool:
        """Whether the chains are walked in another process (`ParallelLinks`): then the rows
        need not be followed here."""
        return False

    def close(self) -> None:
        """End whatever walks the chains elsewhere (nothing does here)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def finish(self) -> None:
        self._finish(self.chains.ends())

    def _finish(self, walked: Mapping[str, bool]) -> None:
        """Raise `ChainBroken` unless every campaign walked ended whole (`walked`: campaign ->
        intact), none had a snapshot changed or its kept head deleted, and no head is kept for
        a campaign of which no row was walked (all its events deleted)."""
        for campaign, intact in walked.items():
            if (not intact or self.reader._snapshot_problem(UUID(campaign)) is not None
                    or campaign in self.headless):
                raise ChainBroken(campaign)
        for kept, head in self.heads.items():
            if kept not in walked and not ChainWalk(kept, head).end().intact:
                raise ChainBroken(kept)


class ParallelLinks(RebuildLinks):
    """`RebuildLinks` with the rows' links walked in a child process (`tracker/chain_check.py`)
    reading the same SQLite file, on a second processor, while the rebuild folds the rows.

    The child starts at the first batch (`walked_elsewhere`), inside the rebuild's transaction,
    whose write lock keeps every row as it is until the commit; `finish` waits for its verdict
    before the commit. Should it fail to start, the rows are followed here as ever; should it
    fail later, `finish` says the chain did not hold, and the caller walks every chain again
    in process to say where, or finds it whole and rebuilds without the check in parallel.
    Used as a context manager: a child still running when the rebuild stops is ended.
    """

    def __init__(self, reader: ChainReader, path: str, table: str) -> None:
        super().__init__(reader)
        self.path = path
        self.table = table
        self.child: subprocess.Popen[bytes] | None = None
        self.started = False

    def walked_elsewhere(self) -> bool:
        if not self.started:
            # Only a replay walks beside the fold: no other command loads subprocess.
            import subprocess

            self.started = True
            heads = json.dumps(self.heads).encode()
            try:
                self.child = subprocess.Popen(
                    [sys.executable, "-m", "tracker.chain_check", self.path, self.table],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                assert self.child.stdin is not None
                self.child.stdin.write(heads)
                self.child.stdin.close()
            except OSError:
                self.close()
        return self.child is not None

    def finish(self) -> None:
        if self.child is None:
            super().finish()
            return
        child, self.child = self.child, None
        assert child.stdout is not None
        output = child.stdout.read()
        child.stdout.close()
        if child.wait() != 0:
            raise ChainBroken("the chain walk beside the rebuild failed")
        verdict = json.loads(output)
        if "broken" in verdict:
            raise ChainBroken(str(verdict["broken"]))
        self._finish({str(k): bool(v) for k, v in verdict["walked"].items()})

    def close(self) -> None:
        child, self.child = self.child, None
        if child is not None:
            child.kill()
            child.wait()
            if child.stdout is not None:
                child.stdout.close()
