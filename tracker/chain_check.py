"""Every campaign's hash chain in an SQLite store, walked in a process of its own beside a
rebuild (`trek replay`).

A rebuild folds every stored row and checks each campaign's chain on the same rows. The two
need nothing of each other until the end, so on a long log with a second processor free the
walk runs here, in a child process reading the rows from the same file, while the rebuild
folds them (`tracker/chain_reader.py`, `ParallelLinks`). The rebuild holds the store's write
lock from before this process starts until it commits, so no row can be added or changed in
between, and it commits only once this walk says every chain holds. The walk is `ChainWalk`'s,
the one `trek verify` and an in-process rebuild make (`ChainWalks`).

    python -m tracker.chain_check STORE TABLE      # the kept heads as JSON on standard input

It prints one JSON object: `{"broken": CAMPAIGN}` at the first link that does not hold, else
`{"walked": {CAMPAIGN: INTACT, ...}}`, INTACT saying whether the chain's end is whole.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from collections.abc import Mapping
from typing import Any

from domain.links import stored_bytes, stored_link
from tracker.chain import ChainWalks

# How many rows are read at once.
BATCH = 2000
# An events table's name as the rebuild hands it over: a plain SQL identifier.
_TABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def walk(path: str, table: str, heads: Mapping[str, tuple[int, str]]) -> dict[str, Any]:
    """Walk every campaign's chain in the store at `path`, its events in `table`, in the order
    they were stored; `heads` are the chain heads kept for each campaign (seq, hash)."""
    if _TABLE.fullmatch(table) is None:
        raise ValueError(f"not a table name: {table!r}")
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA query_only = ON")
        cursor = connection.execute(
            f"SELECT originator_id, originator_version, topic, state FROM {table} "
            "ORDER BY rowid")
        chains = ChainWalks(heads)
        while rows := cursor.fetchmany(BATCH):
            for originator, seq, topic, state in rows:
                data = stored_bytes(state)
                linked, chain = stored_link(data)
                broken = chains.step(originator, seq, topic, data, linked, chain)
                if broken is not None:
                    return {"broken": broken}
        return {"walked": chains.ends()}
    finally:
        connection.close()


def main() -> None:
    path, table = sys.argv[1:3]
    heads = {cid: (int(head[0]), str(head[1]))
             for cid, head in json.loads(sys.stdin.read() or "{}").items()}
    sys.stdout.write(json.dumps(walk(path, table, heads)))


if __name__ == "__main__":
    main()
