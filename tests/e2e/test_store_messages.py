"""Stores that cannot be written, are busy, or are named wrongly: one true sentence each.

Real conditions, not stand-ins: a tmpfs mounted read-only, another process holding SQLite's
lock, malformed PostgreSQL URLs.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cliruns import ok, refused
from conftest import TrekRun, trek_command, trek_env

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow


@pytest.fixture
def read_only_mount(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs this test may mount and later remount read-only (root only)."""
    folder = tmp_path / f"mnt-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a read-only filesystem needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "none", str(folder)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"this machine does not allow mounting a tmpfs: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_store_on_a_read_only_mount_reads_and_refuses_to_record(
        trek_cli: Run, read_only_mount: Path) -> None:
    db = str(read_only_mount / "trek.db")
    ok(trek_cli("init", "Ashes Road", db=db))
    ok(trek_cli("supplies", "add", "ammo=2", db=db))
    subprocess.run(["mount", "-o", "remount,ro", str(read_only_mount)], check=True)

    assert ok(trek_cli("status", "--json", db=db)).json()["supplies"]["ammo"] == 2
    assert len(ok(trek_cli("log", "--json", db=db)).json()) == 2
    assert ok(trek_cli("verify", "--json", db=db)).json()["verified"] is True
    refused(trek_cli("supplies", "add", "ammo=1", db=db),
            "is read-only here; reading works, recording does not")
    assert sorted(p.name for p in read_only_mount.iterdir()) == ["trek.db"]


def test_a_busy_store_waits_then_says_it_is_busy_and_records_nothing(tmp_path: Path) -> None:
    db = tmp_path / "trek.db"
    env = trek_env(str(db), TREK_LOCK_TIMEOUT="2")
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(trek_command(*args), env=env, cwd=tmp_path, capture_output=True,
                              text=True, check=False, stdin=subprocess.DEVNULL)

    assert run("init", "Ashes Road").returncode == 0
    holder = sqlite3.connect(str(db), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        busy = run("supplies", "add", "ammo=1")
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert busy.returncode == 1, busy
    assert busy.stderr.startswith("Error: The store ")
    assert "is busy: another program held it for 2s" in busy.stderr
    assert waited >= 2
    events = run("log", "--json")
    assert events.returncode == 0, events
    assert '"SuppliesAdded"' not in events.stdout


@pytest.mark.parametrize(("url", "reason"), [
    ("postgresql://u:pw@127.0.0.1:notaport/x", "malformed (port could not be cast"),
    ("postgresql://u:pw@127.0.0.1:99999/x", "malformed (port out of range"),
    ("postgresql://u:pw@127.0.0.1:-1/x", "malformed"),
    ("postgresql://u:pw@[::1/x", "malformed (invalid ipv6 url)"),
    ("postgresql://u:pw@127.0.0.1:5432/x?bogus=1", "option Trek does not pass on (bogus)"),
])
def test_a_malformed_postgresql_url_is_one_sentence_without_the_password(
        trek_cli: Run, url: str, reason: str) -> None:
    run = trek_cli("status", db=url)
    refused(run, reason)
    assert "pw" not in run.stderr


def test_an_empty_store_path_and_an_uncreatable_one_are_one_sentence(trek_cli: Run) -> None:
    refused(trek_cli("--db", "", "status"), "the store path is empty")
    refused(trek_cli("init", "X", db="/proc/trek.db"), "/proc/trek.db cannot be created")


def test_sqlite_commands_never_import_the_postgresql_driver(trek_cli: Run,
                                                            tmp_path: Path) -> None:
    # A plain install has no psycopg: nothing an SQLite store does may need it.
    probe = ("import sys, runpy; sys.argv = ['trek', *sys.argv[1:]]\n"
             "try:\n    runpy.run_module('cli', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print('psycopg' in sys.modules, file=sys.stderr)")
    db = str(tmp_path / "trek.db")
    for args in (["--help"], ["init", "Ashes Road"], ["status"], ["encounter", "--help"]):
        result = subprocess.run([sys.executable, "-c", probe, *args], env=trek_env(db),
                                cwd=tmp_path, capture_output=True, text=True, check=False)
        assert result.stderr.strip().endswith("False"), (args, result.stderr)


@pytest.mark.postgres
def test_a_password_given_as_a_url_option_is_used(trek_cli: Run, pg_url: str) -> None:
    # postgresql://trek:PW@host:port/db  ->  postgresql://trek@host:port/db?password=PW
    head, _, tail = pg_url.partition("@")
    user, _, password = head.removeprefix("postgresql://").partition(":")
    url = f"postgresql://{user}@{tail}?password={password}"
    started = time.monotonic()
    ok(trek_cli("init", "Ashes Road", db=url))
    assert ok(trek_cli("status", "--json", db=url)).json()["campaign"] == "ashes-road"
    assert time.monotonic() - started < 30


def test_a_damaged_store_is_one_sentence_from_the_real_program(
        trek_cli: Run, tmp_path: Path) -> None:
    """A Trek store cut short (as a copy that stopped half-way leaves it) and one with a page
    zeroed inside it: the program says the store is damaged, never that it is someone else's,
    never that a read recorded nothing, and never that it is intact."""
    db = tmp_path / "trek.db"
    ok(trek_cli("init", "Ashes Road", db=str(db)))
    ok(trek_cli("supplies", "add", "ammo=2", db=str(db)))
    whole = db.read_bytes()
    cut = tmp_path / "cut.db"
    cut.write_bytes(whole[:len(whole) // 2])
    for args in (("status",), ("verify",), ("supplies", "add", "ammo=1")):
        run = trek_cli(*args, db=str(cut))
        refused(run, "cut.db is damaged", "restore it from a backup", "left untouched")
        assert "not a Trek store" not in run.stderr
    assert cut.read_bytes() == whole[:len(whole) // 2]
    # The page of the log's index zeroed: reading the log meets it, verify's check finds it.
    conn = sqlite3.connect(db)
    size, page = (conn.execute("PRAGMA page_size").fetchone()[0],
                  conn.execute("SELECT rootpage FROM sqlite_master "
                               "WHERE name = 'trek_view_entries'").fetchone()[0])
    conn.close()
    with db.open("r+b") as handle:
        handle.seek((page - 1) * size)
        handle.write(bytes(size))
    for args in (("log",), ("verify",)):
        run = trek_cli(*args, db=str(db))
        refused(run, "trek.db is damaged: SQLite cannot read all of it",
                "restore it from a backup")
        assert "nothing was recorded" not in run.stderr
