"""Tamper evidence: each stored event names the hash of the one before it.

The hash is taken over the row as stored (its bytes and, from chain format 2 on, its campaign,
seq and topic), so the check reads rows as they are on disk and never decodes them into events:
an edited row changes its own hash, which no longer matches the link its successor recorded.
The newest event has no successor, so its hash is compared with the chain's head, which the
read models keep in a table that only ever moves forward: an edit to the newest event, or its
deletion, is noticed there.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from domain.events import link_hash


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


def check_chain(rows: Iterable[tuple[int, str, bytes]], campaign: str, *,
                known: tuple[int, str] | None = None) -> ChainCheck:
    """Walk (seq, topic, stored bytes) of campaign `campaign` (its id) in order and name the
    first link that does not hold.

    `known` is the chain's head as kept when the newest event was folded (seq, hash): it
    catches an edit to an event no later event links to yet, and newest events deleted.
    """
    previous = ""
    expected_seq = 1
    for seq, topic, data in rows:
        if seq != expected_seq:
            return ChainCheck(seq - 1, expected_seq,
                              f"event {expected_seq} is missing from the store")
        try:
            state = json.loads(data)
            linked = state["prev_hash"] if isinstance(state, dict) else None
            chain = int(state.get("chain", 1))
        except (ValueError, KeyError, TypeError):
            linked = None
            chain = 1
        if not isinstance(linked, str):
            return ChainCheck(seq, seq, f"event {seq} is not a readable Trek event any more")
        if linked != previous:
            return ChainCheck(
                seq, seq - 1,
                f"event {seq} links to a predecessor hashed {short(linked)}, but event "
                f"{seq - 1} now hashes to {short(previous)}: event {seq - 1} was changed "
                "after it was recorded",
            )
        previous = link_hash(chain, campaign, seq, topic, data)
        if known is not None and known[0] == seq and known[1] != previous:
            return ChainCheck(
                seq, seq,
                f"event {seq} hashes to {short(previous)}, but it hashed to {short(known[1])} "
                "when it was recorded: it was changed afterwards",
            )
        expected_seq += 1
    last = expected_seq - 1
    if known is not None and known[0] > last:
        gone = (f"event {last + 1} was" if known[0] == last + 1
                else f"events {last + 1} to {known[0]} were")
        return ChainCheck(last, last + 1, f"{gone} recorded and cannot be found in the store "
                                          "now: deleted behind Trek's back")
    return ChainCheck(last, head=previous)
