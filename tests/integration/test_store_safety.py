"""The real `trek` program never creates, changes or leaks a store it should not touch.

RULES §1: read commands never create a store nor change one, theirs or a foreign one; a store
that is not a Trek store is refused with one sentence (exit 1), never a traceback; and a
PostgreSQL password is never printed.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from conftest import TrekRun
from pgserver import PgServer
from psycopg import sql

Run = Callable[..., TrekRun]

READ_COMMANDS: list[tuple[str, ...]] = [
    ("status",), ("status", "--json"), ("log",), ("log", "--json"), ("campaigns",),
    ("map", "show"), ("rules", "show"), ("replay", "--verify"),
]
# Commands that would write to a Trek store; they must still refuse a foreign one untouched.
WRITE_COMMANDS: list[tuple[str, ...]] = [
    ("init", "Foreign"), ("supplies", "add", "provisions=1"), ("replay",), ("undo",),
]


def assert_refused(run: TrekRun, *fragments: str) -> None:
    assert run.returncode == 1, run
    assert run.stdout == "", run
    assert "Traceback" not in run.stderr, run
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run  # one sentence
    assert lines[0].startswith("Error: "), run
    assert lines[0].endswith("."), run
    for fragment in fragments:
        assert fragment in run.stderr, run


def file_state(path: Path) -> tuple[bytes, int, int]:
    stat = path.stat()
    return path.read_bytes(), stat.st_mtime_ns, stat.st_size


# -- SQLite -------------------------------------------------------------------------------------


def test_a_read_command_on_a_missing_path_creates_nothing(trek_run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "stores"
    folder.mkdir()
    db = folder / "nothing-here.db"
    for command in [("status", "--json"), ("log",), ("campaigns",), ("map", "show"),
                    ("replay", "--verify"), ("supplies", "add", "ammo=1")]:
        result = trek_run(*command, db=str(db))
        assert_refused(result, "no Trek store", str(db), "trek init")
        assert list(folder.iterdir()) == []
    # Nor the default ./trek.db in the working directory.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stores"]


def test_init_into_a_missing_folder_is_refused(trek_run: Run, tmp_path: Path) -> None:
    db = tmp_path / "no" / "such" / "folder" / "t.db"
    assert_refused(trek_run("init", "Ashes Road", db=str(db)), "does not exist")
    assert not (tmp_path / "no").exists()


def _non_trek_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE recipes (name TEXT, stars INTEGER)")
        conn.execute("INSERT INTO recipes VALUES ('stew', 4)")
    conn.close()


def _random_bytes(path: Path) -> None:
    path.write_bytes(os.urandom(8192))


def _non_trek_sqlite_in_wal_mode(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    with conn:
        conn.execute("CREATE TABLE recipes (name TEXT, stars INTEGER)")
        conn.execute("INSERT INTO recipes VALUES ('stew', 4)")
    conn.close()
    # The last connection to close checkpoints and removes the -wal and -shm files.
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def _sqlite_header_then_garbage(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(4080))


@pytest.mark.parametrize("make", [_non_trek_sqlite, _non_trek_sqlite_in_wal_mode, _random_bytes,
                                  _sqlite_header_then_garbage],
                         ids=["other-sqlite", "other-sqlite-wal", "random-bytes",
                              "broken-sqlite"])
def test_a_file_that_is_not_a_trek_store_is_refused_and_left_untouched(
        trek_run: Run, tmp_path: Path, make: Callable[[Path], None]) -> None:
    folder = tmp_path / "stores"
    folder.mkdir()
    foreign = folder / "foreign.db"
    make(foreign)
    # An old mtime, so that even a rewrite of the same bytes within this second would show.
    os.utime(foreign, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = file_state(foreign)

    for command in [("status",), ("log", "--json"), ("replay", "--verify"), *WRITE_COMMANDS]:
        result = trek_run(*command, db=str(foreign))
        assert_refused(result, "not a Trek store", str(foreign), "untouched")
        assert file_state(foreign) == before, command
        # No journal, WAL or shared-memory file was made next to it either.
        assert [p.name for p in folder.iterdir()] == ["foreign.db"]


def _zero_bytes(path: Path) -> None:
    path.write_bytes(b"")


def _zero_bytes_and_a_journal(path: Path) -> None:
    # What a `trek init` killed before its first commit leaves behind.
    path.write_bytes(b"")
    Path(f"{path}-journal").write_bytes(b"")


def _sqlite_without_tables(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 0")
    conn.execute("VACUUM")
    conn.close()


@pytest.mark.parametrize("make", [_zero_bytes, _zero_bytes_and_a_journal, _sqlite_without_tables],
                         ids=["zero-bytes", "zero-bytes-and-journal", "sqlite-without-tables"])
def test_an_empty_leftover_is_no_store_yet_and_init_makes_one_there(
        trek_run: Run, tmp_path: Path, make: Callable[[Path], None]) -> None:
    folder = tmp_path / "stores"
    folder.mkdir()
    leftover = folder / "trek.db"
    make(leftover)
    before = file_state(leftover)
    for command in [("status",), ("log", "--json"), ("supplies", "add", "ammo=1")]:
        result = trek_run(*command, db=str(leftover))
        assert_refused(result, "no Trek store", "yet", "trek init")
        assert file_state(leftover) == before, command
    made = trek_run("init", "Ashes Road", "--seed", "3", db=str(leftover))
    assert made.returncode == 0, made
    status = trek_run("status", "--json", db=str(leftover))
    assert (status.returncode, status.json()["campaign"], status.json()["events"]) == (
        0, "ashes-road", 1)


def test_a_folder_is_refused(trek_run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert_refused(trek_run("status", db=str(folder)), "is a folder")
    assert_refused(trek_run("init", "Ashes Road", db=str(folder)), "is a folder")
    assert list(folder.iterdir()) == []


def test_read_commands_leave_a_trek_store_byte_for_byte(trek_run: Run, tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert trek_run("init", "Ashes Road", "--seed", "3", db=str(db)).returncode == 0
    assert trek_run("supplies", "add", "provisions=2", db=str(db)).returncode == 0
    before = file_state(db)
    names = sorted(p.name for p in tmp_path.iterdir())
    for command in [*READ_COMMANDS, ("status", "--as-of", "1"), ("log", "--day", "0")]:
        result = trek_run(*command, db=str(db))
        assert result.returncode == 0, result
        assert file_state(db) == before, command
        assert sorted(p.name for p in tmp_path.iterdir()) == names


MAP = Path(__file__).resolve().parents[2] / "docs" / "examples" / "ashen-reach.toml"


def _played_store(trek_run: Run, db: Path) -> None:
    """A Trek store with a day's travel in it, as a GM's would be."""
    for command in [("init", "Ashes Road", "--map", str(MAP), "--at", "1,1", "--seed", "42"),
                    ("roster", "add-character", "Kira", "--body", "6", "--mind", "5",
                     "--soul", "4"),
                    ("day", "start"), ("move", "S"), ("supplies", "add", "ammo=2"), ("day", "end")]:
        assert trek_run(*command, db=str(db)).returncode == 0, command


def _zero_pages_of(path: Path, *tables: str) -> None:
    """Zero the first page of each of `tables` inside the file, as a failing disk could."""
    conn = sqlite3.connect(path)
    try:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                              (table,)).fetchone()[0] for table in tables]
    finally:
        conn.close()
    with path.open("r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * size)
            handle.write(bytes(size))


DAMAGED_SAYS = ("is damaged: SQLite cannot read all of it", "restore it from a backup")


def _refused_as_damaged(run: TrekRun) -> None:
    assert_refused(run, *DAMAGED_SAYS)
    assert "nothing was recorded" not in run.stderr, run
    assert "not a Trek store" not in run.stderr, run


def test_a_trek_store_cut_short_is_a_damaged_store_left_untouched(
        trek_run: Run, tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    _played_store(trek_run, db)
    whole = db.read_bytes()
    db.write_bytes(whole[: len(whole) // 2])
    before = file_state(db)
    for command in [*READ_COMMANDS, ("verify",), *WRITE_COMMANDS]:
        result = trek_run(*command, db=str(db))
        _refused_as_damaged(result)
        assert "left untouched" in result.stderr, result
        assert file_state(db) == before, command
        assert sorted(p.name for p in tmp_path.iterdir()) == ["t.db"]


def test_a_trek_store_with_pages_sqlite_cannot_read_is_damaged_never_intact(
        trek_run: Run, tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    _played_store(trek_run, db)
    _zero_pages_of(db, "stored_events", "trek_view_campaigns", "trek_view_state")
    before = file_state(db)
    for command in [("status",), ("status", "--json"), ("log",), ("log", "--json"),
                    ("verify",), ("verify", "--json"), ("replay", "--verify")]:
        result = trek_run(*command, db=str(db))
        _refused_as_damaged(result)
        assert file_state(db) == before, command
    for command in [("supplies", "add", "provisions=1"), ("undo",), ("replay",)]:
        _refused_as_damaged(trek_run(*command, db=str(db)))


def test_verify_reads_every_page_of_an_sqlite_store(trek_run: Run, tmp_path: Path) -> None:
    """Only the log's index is unreadable: the chain walk never reads it, SQLite's own check
    does."""
    db = tmp_path / "t.db"
    _played_store(trek_run, db)
    assert trek_run("verify", db=str(db)).returncode == 0
    _zero_pages_of(db, "trek_view_entries")
    _refused_as_damaged(trek_run("verify", db=str(db)))
    _refused_as_damaged(trek_run("log", db=str(db)))


def test_a_store_path_with_uri_characters_is_one_whole_file(
        trek_run: Run, tmp_path: Path) -> None:
    # SQLite is opened through file: URIs, where # and ? and % mean something.
    folder = tmp_path / "stores"
    folder.mkdir()
    name = "ashes #2? 50%.db"
    db = str(folder / name)
    assert trek_run("init", "Ashes Road", db=db).returncode == 0
    assert trek_run("supplies", "add", "ammo=2", db=db).returncode == 0
    assert [p.name for p in folder.iterdir()] == [name]
    assert trek_run("replay", "--verify", db=db).returncode == 0
    # Everything is in that one file: a copy of it alone is the whole store.
    copy = tmp_path / "copy.db"
    shutil.copyfile(db, copy)
    status = trek_run("status", "--json", db=str(copy))
    assert status.returncode == 0, status
    assert (status.json()["supplies"]["ammo"], status.json()["events"]) == (2, 2)


def test_init_twice_with_the_same_name_is_refused(trek_run: Run, tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    assert trek_run("init", "Ashes Road", db=db).returncode == 0
    before = file_state(Path(db))
    # The same name, and another spelling of the same slug.
    for name in ("Ashes Road", "ashes-road", "ASHES  road!"):
        assert_refused(trek_run("init", name, db=db), "already has a campaign called 'ashes-road'")
    assert file_state(Path(db)) == before
    listing = trek_run("campaigns", "--json", db=db).json()
    assert [c["slug"] for c in listing] == ["ashes-road"]
    assert listing[0]["events"] == 1


# -- PostgreSQL ---------------------------------------------------------------------------------


def _table_count(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM information_schema.tables "
                           "WHERE table_schema = current_schema()").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.postgres
def test_a_postgres_password_is_never_printed(
        trek_run: Run, pg_server: PgServer, pg_url: str) -> None:
    # A second role whose password needs quoting in a URL, so both spellings are looked for.
    role = f"gm_{uuid.uuid4().hex[:10]}"
    password = f"Pa:ss@w/rd%{uuid.uuid4().hex[:8]}?#"
    dbname = f"t_safety_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
            sql.Identifier(role), sql.Literal(password)))
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(
            sql.Identifier(dbname), sql.Identifier(role)))
    quoted = quote(password, safe="")
    url = f"postgresql://{role}:{quoted}@{pg_server.host}:{pg_server.port}/{dbname}"
    wrong_password = f"Wr0ng:{uuid.uuid4().hex[:8]}@"
    wrong = url.replace(quoted, quote(wrong_password, safe=""))
    unreachable = url.replace(f":{pg_server.port}/", ":1/")
    missing_db = url.replace(f"/{dbname}", "/no_such_database")

    secrets = {password, quoted, wrong_password, quote(wrong_password, safe=""),
               pg_server.password}
    runs: list[TrekRun] = []

    def run(*args: str, db: str = url) -> TrekRun:
        result = trek_run(*args, db=db)
        runs.append(result)
        return result

    # Before the store exists: reads refused, and nothing created.
    assert_refused(run("status"), "holds no Trek store")
    assert _table_count(url) == 0
    assert run("init", "Ashes Road", "--seed", "1").returncode == 0
    assert run("supplies", "add", "provisions=3", "--json").returncode == 0
    assert run("status", "--json").json()["supplies"]["provisions"] == 3
    assert run("log", "--json").returncode == 0
    assert run("replay", "--verify").returncode == 0
    assert run("replay").returncode == 0
    assert_refused(run("init", "Ashes Road"), "already has a campaign")
    assert_refused(run("undo", "99"), "no event 99")
    assert run("move", "NOWHERE").returncode == 2
    assert run("--help").returncode == 0
    # The store given with --db (over a TREK_DB that points nowhere useful) works the same.
    runs.append(trek_run("--db", url, "status", db=os.devnull))
    assert runs[-1].returncode == 0, runs[-1]

    for bad, why in ((wrong, "password authentication failed"),
                     (unreachable, "Cannot reach"),
                     (missing_db, "does not exist")):
        for command in (("status", "--json"), ("init", "Other")):
            assert_refused(run(*command, db=bad), why)
    assert_refused(run("supplies", "add", "ammo=1", db=wrong), "password authentication failed")

    for result in runs:
        for secret in secrets:
            assert secret not in result.stdout, result
            assert secret not in result.stderr, result
    # The refusals do show where they looked, with the password masked.
    assert f"postgresql://{role}:***@{pg_server.host}:1/{dbname}" in " ".join(
        r.stderr for r in runs)


@pytest.mark.postgres
def test_postgres_reads_create_nothing_and_a_used_database_is_refused(
        trek_run: Run, pg_url: str) -> None:
    for command in READ_COMMANDS:
        assert_refused(trek_run(*command, db=pg_url), "holds no Trek store")
    assert _table_count(pg_url) == 0

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.execute("INSERT INTO recipes VALUES ('stew')")
    assert_refused(trek_run("init", "Ashes Road", db=pg_url), "already holds other tables")
    assert_refused(trek_run("status", db=pg_url), "holds no Trek store")
    assert _table_count(pg_url) == 1
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT name FROM recipes").fetchall() == [("stew",)]


@pytest.mark.postgres
def test_postgres_init_twice_with_the_same_name_is_refused(trek_run: Run, pg_url: str) -> None:
    assert trek_run("init", "Ashes Road", db=pg_url).returncode == 0
    assert_refused(trek_run("init", "Ashes Road", db=pg_url),
                   "already has a campaign called 'ashes-road'")
    assert [c["slug"] for c in trek_run("campaigns", "--json", db=pg_url).json()] == [
        "ashes-road"]
