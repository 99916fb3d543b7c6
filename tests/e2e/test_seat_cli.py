"""`trek seat` and `trek requests` (RULES §14), in this process."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _campaign(trek_run: Callable[..., Any]) -> None:
    assert trek_run("init", "Ashes Road").returncode == 0
    for name in ("Kira", "Oren"):
        assert trek_run("roster", "add-character", name, "--body", "5", "--mind", "4",
                        "--soul", "4").returncode == 0


def test_seats_are_made_listed_trusted_and_removed(trek_run: Callable[..., Any],
                                                   tmp_path: Path) -> None:
    _campaign(trek_run)
    made = trek_run("seat", "add", "ana", "--character", "Kira", "--character", "Oren",
                    "--json")
    assert made.returncode == 0, made.stderr
    shown = json.loads(made.stdout)
    key = shown.pop("key")
    assert shown == {"seat": "ana", "characters": ["Kira", "Oren"], "trusted": False}
    assert len(key) >= 40
    plain = trek_run("seat", "add", "bo", "--character", "Oren", "--trusted")
    assert plain.returncode == 0
    # The key is printed once, whole, on a line of its own.
    other = next(line.split(": ", 1)[1] for line in plain.stdout.splitlines()
                 if line.startswith("Key"))
    assert len(other) >= 40

    listed = trek_run("seat", "list", "--json")
    assert json.loads(listed.stdout) == [
        {"seat": "ana", "characters": ["Kira", "Oren"], "trusted": False},
        {"seat": "bo", "characters": ["Oren"], "trusted": True}]
    assert key not in listed.stdout
    assert other not in trek_run("seat", "list").stdout

    assert trek_run("seat", "trust", "ana", "on").returncode == 0
    assert trek_run("seat", "trust", "bo", "off").returncode == 0
    assert [s["trusted"] for s in json.loads(trek_run("seat", "list", "--json").stdout)] == [
        True, False]
    assert trek_run("seat", "remove", "bo").returncode == 0
    assert [s["seat"] for s in json.loads(trek_run("seat", "list", "--json").stdout)] == ["ana"]
    # The name is free again once its seat is removed.
    assert trek_run("seat", "add", "bo", "--character", "Oren").returncode == 0

    # Kept only as a hash: neither key is in the store's bytes; the hash is.
    held = b"".join(p.read_bytes() for p in tmp_path.glob("trek.db*"))
    assert key.encode() not in held
    assert other.encode() not in held
    assert hashlib.sha256(key.encode()).hexdigest().encode() in held


def test_seat_refusals(trek_run: Callable[..., Any]) -> None:
    _campaign(trek_run)
    assert trek_run("seat", "add", "ana", "--character", "Kira").returncode == 0
    for args, words in [
        (("seat", "add", "bo", "--character", "Nobody"), "not a character of the roster"),
        (("seat", "add", "ana", "--character", "Oren"), "in use"),
        (("seat", "remove", "zed"), "no seat 'zed'"),
        (("seat", "trust", "zed", "on"), "no seat 'zed'"),
    ]:
        refused = trek_run(*args)
        assert refused.returncode == 1, args
        assert words in refused.stderr
        assert refused.stderr.count("\n") == 1
    assert trek_run("seat", "trust", "ana", "maybe").returncode == 2


def test_requests_are_listed(trek_run: Callable[..., Any], tmp_path: Path) -> None:
    from rulesets import RULESETS

    from tracker.app import Trek
    from tracker.seats import Seats

    _campaign(trek_run)
    assert json.loads(trek_run("requests", "--json").stdout) == []
    with Trek.open(str(tmp_path / "trek.db"), rulesets=RULESETS, gm="t") as trek:
        seats = Seats(trek.views)
        seats.ask("ashes-road", "ana", argv=["move", "E"], command=None, preview=None)
        second = seats.ask("ashes-road", "ana", argv=["move", "N"], command=None,
                           preview=None)
        seats.decide("ashes-road", second["request"], "rejected", by="t", reason="Not yet")
    listed = json.loads(trek_run("requests", "--json").stdout)
    assert [(r["request"], r["argv"], r["status"]) for r in listed] == [
        (1, ["move", "E"], "pending"), (2, ["move", "N"], "rejected")]
    pending = json.loads(trek_run("requests", "--status", "pending", "--json").stdout)
    assert [r["request"] for r in pending] == [1]
    assert "Not yet" in trek_run("requests").stdout
    assert trek_run("requests", "--status", "maybe").returncode == 2
    # A campaign played without sessions: audit's part outside any session and the whole
    # campaign's recap count them all per seat: two asked by ana, one waiting, one turned down.
    counted = {"ana": {"asked": 2, "approved": 0, "rejected": 1, "stale": 0, "recorded": 0,
                       "pending": 1}}
    audit = json.loads(trek_run("audit", "--json").stdout)
    assert [(a["session"], a["requests"]) for a in audit["sessions"]] == [(None, counted)]
    assert "Seat ana: 2 requests (1 rejected, 1 pending)" in trek_run("audit").stdout
    recap = trek_run("recap")
    assert recap.returncode == 0, recap.stderr
    assert "- ana: 2 requests (1 rejected, 1 pending)" in recap.stdout
    assert json.loads(trek_run("recap", "--json").stdout)["requests"] == counted


def test_recap_and_audit_count_the_requests_of_the_session_they_cover(
        trek_run: Callable[..., Any], tmp_path: Path) -> None:
    """Each request counts in the session open when it was asked. By hand: ana asks 1 before
    any session (rejected); in session 1 ana asks 2 (approved) and 3 (stale), bo asks 4
    (rejected) and 5 (recorded, trusted); in session 2, still open, ana asks 6 (waiting) and
    bo 7 (approved)."""
    from rulesets import RULESETS

    from tracker.app import Trek
    from tracker.seats import Seats

    _campaign(trek_run)
    db = str(tmp_path / "trek.db")

    def asks(*made: tuple[str, str]) -> None:
        with Trek.open(db, rulesets=RULESETS, gm="t") as trek:
            seats = Seats(trek.views)
            for seat, status in made:
                if status == "recorded":
                    seats.ask("ashes-road", seat, argv=["move", "E"], command=None,
                              preview=None, status="recorded", decided_by="t")
                    continue
                number = seats.ask("ashes-road", seat, argv=["move", "E"], command=None,
                                   preview=None)["request"]
                if status != "pending":
                    assert seats.decide("ashes-road", number, status, by="t")

    asks(("ana", "rejected"))
    assert trek_run("session", "start", "One").returncode == 0
    asks(("ana", "approved"), ("ana", "stale"), ("bo", "rejected"), ("bo", "recorded"))
    assert trek_run("session", "end").returncode == 0
    assert trek_run("session", "start", "Two").returncode == 0
    asks(("ana", "pending"), ("bo", "approved"))

    def of(asked: int, **became: int) -> dict[str, int]:
        return {"asked": asked, **{status: became.get(status, 0) for status in (
            "approved", "rejected", "stale", "recorded", "pending")}}

    one = {"ana": of(2, approved=1, stale=1), "bo": of(2, rejected=1, recorded=1)}
    two = {"ana": of(1, pending=1), "bo": of(1, approved=1)}
    outside = {"ana": of(1, rejected=1)}
    audit = json.loads(trek_run("audit", "--json").stdout)
    assert [(a["session"], a["requests"]) for a in audit["sessions"]] == [
        (1, one), (2, two), (None, outside)]
    # One session's audit counts that session's alone.
    alone = json.loads(trek_run("audit", "--session", "1", "--json").stdout)
    assert [(a["session"], a["requests"]) for a in alone["sessions"]] == [(1, one)]
    text = trek_run("audit", "--session", "1").stdout
    assert "Seat ana: 2 requests (1 approved, 1 stale)" in text
    assert "Seat bo: 2 requests (1 rejected, 1 recorded)" in text

    # The recap of the latest session (2, open), and of session 1.
    assert json.loads(trek_run("recap", "--json").stdout)["requests"] == two
    assert json.loads(trek_run("recap", "--session", "1", "--json").stdout)[
        "requests"] == one
    recap = trek_run("recap").stdout
    assert "- ana: 1 request (1 pending)" in recap
    assert "- bo: 1 request (1 approved)" in recap
