"""Tamper evidence: each stored event names the hash of the one before it.

The hash is SHA-256 of the event's stored bytes, so the check reads the rows as they are on disk
and never decodes them into events: an edited row changes its own hash, which no longer matches
the link its successor recorded. The newest event has no successor, so its hash is compared with
the one the read models kept when they folded it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class ChainCheck:
    """The outcome of walking one campaign's chain."""

    events: int
    broken_at: int | None = None
    problem: str | None = None

    @property
    def intact(self) -> bool:
        return self.broken_at is None


def short(digest: str) -> str:
    return digest[:12] if digest else "nothing"


def check_chain(rows: Iterable[tuple[int, bytes]], *,
                known: tuple[int, str] | None = None) -> ChainCheck:
    """Walk (seq, stored bytes) in order and name the first link that does not hold.

    `known` is a (seq, hash) pair recorded elsewhere when that event was first read (the read
    models' head), which catches an edit to an event no later event links to yet.
    """
    previous = ""
    expected_seq = 1
    for seq, data in rows:
        if seq != expected_seq:
            return ChainCheck(seq - 1, expected_seq,
                              f"event {expected_seq} is missing from the store")
        try:
            state = json.loads(data)
            linked = state["prev_hash"] if isinstance(state, dict) else None
        except (ValueError, KeyError):
            linked = None
        if not isinstance(linked, str):
            return ChainCheck(seq, seq, f"event {seq} is not a readable Trek event any more")
        if linked != previous:
            return ChainCheck(
                seq, seq - 1,
                f"event {seq} links to a predecessor hashed {short(linked)}, but event "
                f"{seq - 1} now hashes to {short(previous)}: event {seq - 1} was changed "
                "after it was recorded",
            )
        previous = hashlib.sha256(data).hexdigest()
        if known is not None and known[0] == seq and known[1] != previous:
            return ChainCheck(
                seq, seq,
                f"event {seq} hashes to {short(previous)}, but it hashed to {short(known[1])} "
                "when the read models folded it: it was changed after it was recorded",
            )
        expected_seq += 1
    return ChainCheck(expected_seq - 1)
