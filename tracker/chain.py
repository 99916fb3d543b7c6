"""Tamper evidence: each stored event names the hash of the one before it.

The hash is taken over the row as stored (its bytes and, from chain format 2 on, its campaign,
seq and topic), so the check reads rows as they are on disk and never decodes them into events:
an edited row changes its own hash, which no longer matches the link its successor recorded.
The newest event has no successor, so its hash is compared with the chain's head, which the
read models keep in a table that only ever moves forward: an edit to the newest event, or its
deletion, is noticed there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from hashlib import sha256
from typing import Any, TypeVar
from uuid import UUID

from domain.errors import TamperedLog, TrackerError
from domain.links import link_hash, stored_link
from projections.logpages import IndexDiffers, MissingEvent


@dataclass(frozen=True)
class ChainCheck:
    """The outcome of walking one campaign's chain."""

    events: int
    broken_at: int | None = None
    problem: str | None = None
    # The hash of the last event walked (what the next event must link to).
    head: str = ""

    @property
    def intact(self) -> bool:
        return self.broken_at is None


def short(digest: str) -> str:
    return digest[:12] if digest else "nothing"


_join = b"".join

# How many rows past a link that does not hold `check_chain` reads to find where the event that
# belongs there went (rows swapped or moved), before blaming the event before it.
LOOK_AHEAD = 1000


_Entry = TypeVar("_Entry", bound=Mapping[str, Any])


def undamaged(slug: str, entries: Iterator[_Entry]) -> Iterator[_Entry]:
    """A campaign's stored log entries, an event missing from the store told as damage, and
    an index row that names another kind than its event as a read model that differs."""
    try:
        yield from entries
    except MissingEvent as missing:
        raise TamperedLog(damaged(slug, missing.seq, f"{missing}: deleted behind Trek's back"
                                  )) from None
    except IndexDiffers as differs:
        raise TrackerError(
            f"the log of {slug} cannot be shown: {differs}, so one of them was changed "
            "behind Trek's back; `trek replay --verify` names every read model that differs "
            "from the log (`trek replay` rebuilds them) and `trek verify` checks the log itself"
        ) from None


def damaged(slug: str, seq: int, detail: str, *, recording: bool = False) -> str:
    """The one sentence every command says about a damaged log: where, what, and where to look
    (`recording`: a command that was to record, and recorded nothing)."""
    done = "nothing was recorded, and " if recording else ""
    return (f"the log of {slug} is damaged at event {seq} ({detail}); {done}`trek verify` "
            "says more")


class ChainWalk:
    """One campaign's chain walked a row at a time, in order: `step` names the first link that
    does not hold, `end` what is missing at the end. `check_chain` walks a whole campaign with
    it; a rebuild walks every campaign with it as it folds the rows (so the log is read once).

    `known` is the chain's head as kept when the newest event was folded (seq, hash): it
    catches an edit to an event no later event links to yet, and newest events deleted.
    """

    __slots__ = ("_prefix", "_topics", "campaign", "expected_seq", "known", "mislinked",
                 "previous")

    def __init__(self, campaign: str, known: tuple[int, str] | None = None) -> None:
        self.campaign = campaign
        self.known = known
        self.previous = ""
        self.expected_seq = 1
        # The row whose link did not hold (seq, what it links to), for `misplaced`.
        self.mislinked: tuple[int, str] | None = None
        # What `link_hash` hashes before and around each row of chain format 2, made once: a
        # rebuild hashes every row.
        self._prefix = b"trek-chain-2\n%s\n" % campaign.encode()
        self._topics: dict[str, bytes] = {}

    def step(self, seq: int, topic: str, data: bytes, linked: object, chain: int
             ) -> ChainCheck | None:
        """Walk the row of event `seq` (its topic and stored bytes), which links to the hash
        `linked` under chain format `chain` (`linked` is None for a row that cannot be read);
        returns the break it finds, or None."""
        expected = self.expected_seq
        if seq != expected:
            return ChainCheck(seq - 1, expected, f"event {expected} is missing from the store")
        if not isinstance(linked, str):
            return ChainCheck(seq, seq, f"event {seq} is not a readable Trek event any more")
        previous = self.previous
        if linked != previous:
            self.mislinked = (seq, linked)
            return ChainCheck(
                seq, seq - 1,
                f"event {seq} links to a predecessor hashed {short(linked)}, but event "
                f"{seq - 1} now hashes to {short(previous)}: event {seq - 1} was changed "
                "after it was recorded",
            )
        if chain >= 2:
            # `link_hash`, its buffer made of the parts kept for this campaign and topic.
            around = self._topics.get(topic)
            if around is None:
                around = self._topics[topic] = b"\n%s\n" % topic.encode()
            # Joined rather than formatted with %: the same bytes, made faster.
            previous = sha256(_join((self._prefix, b"%d" % seq, around, data))).hexdigest()
        else:
            previous = link_hash(chain, self.campaign, seq, topic, data)
        self.previous = previous
        known = self.known
        if known is not None and known[0] == seq and known[1] != previous:
            return ChainCheck(
                seq, seq,
                f"event {seq} hashes to {short(previous)}, but it hashed to {short(known[1])} "
                "when it was recorded: it was changed afterwards",
            )
        self.expected_seq = expected + 1
        return None

    def end(self) -> ChainCheck:
        """The outcome once every row was walked without a break."""
        last = self.expected_seq - 1
        known = self.known
        if known is not None and known[0] > last:
            gone = (f"event {last + 1} was" if known[0] == last + 1
                    else f"events {last + 1} to {known[0]} were")
            return ChainCheck(last, last + 1, f"{gone} recorded and cannot be found in the "
                                              "store now: deleted behind Trek's back")
        return ChainCheck(last, head=self.previous)


    def misplaced(self, later: Iterator[tuple[int, str, bytes]]) -> ChainCheck | None:
        """After a link that did not hold, the rows that follow it (`later`, read at most
        LOOK_AHEAD of them): when one of them links to the event before the break, the rows
        were moved, not that event changed; says which. None when no row was moved."""
        if self.mislinked is None:
            return None
        seq, linked = self.mislinked
        for _, (at, topic, data) in zip(range(LOOK_AHEAD), later, strict=False):
            if stored_link(data)[0] != self.previous:
                continue
            # Row `at` holds the event recorded as event `seq`.
            chain = stored_link(data)[1]
            if at == seq + 1 and linked == link_hash(chain, self.campaign, seq, topic, data):
                what = (f"events {seq} and {at} were swapped behind Trek's back: each is "
                        "stored in the other's place")
            else:
                what = (f"event {seq} was moved behind Trek's back: the event recorded as "
                        f"event {seq} is now stored as event {at}")
            return ChainCheck(seq - 1, seq, what)
        return None


class ChainWalks:
    """Every campaign's chain walked as the store's rows come, campaigns interleaved: a
    `ChainWalk` each, by the campaign's id as the rows hold it, from its kept head (`heads`,
    campaign -> (seq, hash)). A rebuild walks them beside its fold (tracker/chain_reader.py),
    or a process of its own beside it (tracker/chain_check.py)."""

    def __init__(self, heads: Mapping[str, tuple[int, str]]) -> None:
        self.heads = heads
        self.walks: dict[Any, ChainWalk] = {}

    def step(self, originator: Any, seq: int, topic: str, data: bytes, linked: object,
             chain: int) -> str | None:
        """Walk one row (`ChainWalk.step`); the campaign whose link does not hold, or None."""
        walk = self.walks.get(originator)
        if walk is None:
            cid = str(originator if isinstance(originator, UUID) else UUID(str(originator)))
            walk = self.walks[originator] = ChainWalk(cid, self.heads.get(cid))
        return None if walk.step(seq, topic, data, linked, chain) is None else walk.campaign

    def ends(self) -> dict[str, bool]:
        """Each campaign walked, and whether its chain's end is whole (`ChainWalk.end`)."""
        return {walk.campaign: walk.end().intact for walk in self.walks.values()}


def check_chain(rows: Iterable[tuple[int, str, bytes]], campaign: str, *,
                known: tuple[int, str] | None = None) -> ChainCheck:
    """Walk (seq, topic, stored bytes) of campaign `campaign` (its id) in order and name the
    first link that does not hold (see `ChainWalk`): rows swapped or moved are named as such
    (see `ChainWalk.misplaced`)."""
    walk = ChainWalk(campaign, known)
    stream = iter(rows)
    for seq, topic, data in stream:
        linked, chain = stored_link(data)
        broken = walk.step(seq, topic, data, linked, chain)
        if broken is not None:
            return walk.misplaced(stream) or broken
    return walk.end()
