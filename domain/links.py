"""How each stored event links to the one before it: the hash of its row, read from the row
as stored. Only the standard library, so a reader that checks a store's newest event (the kept
log of `trek log`) needs no model."""

from __future__ import annotations

import hashlib
import json


def stored_link(data: bytes) -> tuple[object, int]:
    """The hash a stored row links to and its chain format, read from its JSON (the link is
    None when the row is not a readable event)."""
    try:
        state = json.loads(data)
        linked = state["prev_hash"] if isinstance(state, dict) else None
        chain = int(state.get("chain", 1))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, 1
    return linked, chain


def stored_bytes(state: bytes | str | memoryview) -> bytes:
    """A row's stored state as bytes: an edit made with a text tool can turn it into text."""
    if isinstance(state, bytes):
        return state
    return state.encode() if isinstance(state, str) else bytes(state)


def link_hash(chain: int, originator_id: str, version: int, topic: str, data: bytes) -> str:
    """The hash the next event links to: of the stored bytes, and (format 2) the row's identity."""
    if chain >= 2:
        # One buffer, one call: a replay hashes every stored row.
        data = b"trek-chain-2\n%s\n%d\n%s\n%s" % (originator_id.encode(), version,
                                                   topic.encode(), data)
    return hashlib.sha256(data).hexdigest()
