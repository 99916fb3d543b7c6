"""The reads of the read models' tables that the tracker asks for, each one statement: the SQL
over Trek's own tables lives in projections/, and the tracker calls these by name."""

from __future__ import annotations

from typing import Any, NamedTuple
from uuid import UUID

from projections.db import Database, has_current_schema
from projections.stored_status import IN_USE_KEY

# The store setting naming a campaign's party in use is this and the campaign's slug.
PARTY_KEY = "party_in_use:"


def campaigns(db: Database) -> list[dict[str, Any]]:
    """Every campaign the read models know: slug, name, ruleset and events, by slug."""
    rows = db.query("SELECT slug, name, ruleset, events FROM trek_view_campaigns ORDER BY slug")
    return [{"slug": s, "name": n, "ruleset": r, "events": int(e)} for s, n, r, e in rows]


class Choices(NamedTuple):
    """What a recording command that names no campaign reads first, in one statement."""

    # `campaigns()`
    campaigns: list[dict[str, Any]]
    # The campaign in use (`trek campaigns use`; None: not set).
    in_use: str | None
    # Each campaign's party in use (`trek party use`; None: not set), by slug.
    parties: dict[str, str | None]
    # Each campaign's kept chain head as `Projector.chain_head` gives it, by slug.
    heads: dict[str, tuple[int, str] | None]


def campaigns_and_choices(db: Database) -> Choices:
    """The campaigns, the campaign in use, each one's party in use and kept chain head, in one
    statement (a store in this release's schema)."""
    rows = db.query(
        "SELECT c.slug, c.name, c.ruleset, c.events, c.last_hash, h.seq, h.hash, "
        "(SELECT value FROM trek_meta WHERE key = ?), "
        "(SELECT value FROM trek_meta WHERE key = ? || c.slug) FROM trek_view_campaigns c "
        "LEFT JOIN trek_chain_heads h ON h.campaign_id = c.campaign_id ORDER BY c.slug",
        (IN_USE_KEY, PARTY_KEY))
    known = [{"slug": row[0], "name": row[1], "ruleset": row[2], "events": int(row[3])}
             for row in rows]
    in_use = str(rows[0][7]) if rows and rows[0][7] is not None else None
    return Choices(known, in_use,
                   {row[0]: None if row[8] is None else str(row[8]) for row in rows},
                   {row[0]: None if row[5] is None else head_of(row[5], row[6], row[3], row[4])
                    for row in rows})


def head_of(seq: Any, digest: Any, folded: Any, folded_hash: Any) -> tuple[int, str]:
    """A campaign's chain head from its kept head and its read models' newest event: they are
    written together, so read models naming a later event mean the head was moved back behind
    Trek's back (to hide newest events deleted with it), and theirs is the head."""
    if folded is not None and int(folded) > int(seq):
        return int(folded), str(folded_hash)
    return int(seq), str(digest)


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
