"""The reads of the read models' tables that the tracker asks for, each one statement: the SQL
over Trek's own tables lives in projections/, and the tracker calls these by name."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from projections.db import Database, has_current_schema


def campaigns(db: Database) -> list[dict[str, Any]]:
    """Every campaign the read models know: slug, name, ruleset and events, by slug."""
    rows = db.query("SELECT slug, name, ruleset, events FROM trek_view_campaigns ORDER BY slug")
    return [{"slug": s, "name": n, "ruleset": r, "events": int(e)} for s, n, r, e in rows]


def ruleset_of(db: Database, slug: str) -> str | None:
    """The ruleset of the campaign `slug` as its read models hold it (None: not folded yet)."""
    rows = db.query("SELECT ruleset FROM trek_view_campaigns WHERE slug = ?", (slug,))
    return str(rows[0][0]) if rows else None


def newest_entry(db: Database, campaign_id: str, *, day: int | None = None) -> int | None:
    """The seq of the newest event the log's index holds for a campaign (of day `day`), or
    None."""
    if day is None:
        rows = db.query("SELECT MAX(seq) FROM trek_view_entries WHERE campaign_id = ?",
                        (campaign_id,))
    else:
        rows = db.query("SELECT MAX(seq) FROM trek_view_entries WHERE campaign_id = ? "
                        "AND day = ?", (campaign_id, day))
    return int(rows[0][0]) if rows and rows[0][0] is not None else None


def setting(db: Database, key: str) -> str | None:
    """One of the store's own settings (`trek_meta`), or None."""
    rows = db.query("SELECT value FROM trek_meta WHERE key = ?", (key,))
    return str(rows[0][0]) if rows else None


def save_setting(cursor: Any, key: str, value: str) -> None:
    """Set one of the store's own settings."""
    cursor.execute("INSERT INTO trek_meta (key, value) VALUES (?, ?) "
                   "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))


def known_heads(db: Database) -> dict[str, tuple[int, str]]:
    """Each campaign's chain head as last folded, by campaign id: from the kept heads, or, in a
    store from before heads were kept, from the campaigns' read models."""
    heads: dict[str, tuple[int, str]] = {}
    if has_current_schema(db):
        for cid, events, last_hash in db.query(
                "SELECT campaign_id, events, last_hash FROM trek_view_campaigns"):
            heads[str(UUID(str(cid)))] = (int(events), str(last_hash))
    if db.has_table("trek_chain_heads"):
        for cid, seq, digest in db.query("SELECT campaign_id, seq, hash FROM trek_chain_heads"):
            key = str(UUID(str(cid)))
            # The read models name a later event than the head only when the head was moved
            # back behind Trek's back (they are written together): theirs stands.
            if key not in heads or heads[key][0] <= int(seq):
                heads[key] = (int(seq), str(digest))
    return heads
