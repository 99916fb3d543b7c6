"""Map pictures in the campaign's store: the bytes once per SHA-256, in a table of their own
beside the events. The event that sets a map names the hash, so the hash chain covers the
picture and `trek verify` can tell a changed one."""

from __future__ import annotations

import hashlib
from typing import Any

from projections.db import Database

TABLE = "trek_pictures"
SCHEMA = (f"CREATE TABLE IF NOT EXISTS {TABLE} (sha256 TEXT PRIMARY KEY, "
          "media_type TEXT NOT NULL, data BYTEA NOT NULL)")


def put(cursor: Any, sha256: str, media_type: str, data: bytes) -> bool:
    """Keep a picture's bytes (once: a hash already kept is left as it is); whether it was
    added."""
    cursor.execute(SCHEMA)
    cursor.execute(f"SELECT 1 FROM {TABLE} WHERE sha256 = ?", (sha256,))
    if cursor.fetchall():
        return False
    cursor.execute(f"INSERT INTO {TABLE} (sha256, media_type, data) VALUES (?, ?, ?)",
                   (sha256, media_type, data))
    return True


def remove(cursor: Any, sha256: str) -> None:
    cursor.execute(f"DELETE FROM {TABLE} WHERE sha256 = ?", (sha256,))


def get(db: Database, sha256: str) -> tuple[str, bytes] | None:
    """A kept picture's media type and bytes, or None."""
    if not db.has_table(TABLE):
        return None
    rows = db.query(f"SELECT media_type, data FROM {TABLE} WHERE sha256 = ?", (sha256,))
    return (str(rows[0][0]), bytes(rows[0][1])) if rows else None


def problems(db: Database, hashes: list[str]) -> list[str]:
    """A sentence for each picture named by `hashes` that the store lacks or holds changed."""
    found = []
    for sha256 in dict.fromkeys(hashes):
        kept = get(db, sha256)
        if kept is None:
            found.append(f"the map's picture {sha256[:12]} is missing from the store")
        elif hashlib.sha256(kept[1]).hexdigest() != sha256:
            found.append(f"the map's picture {sha256[:12]} was changed in the store (its bytes "
                         "no longer have the hash its event names)")
    return found
