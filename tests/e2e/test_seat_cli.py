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
    # audit and recap count them per seat: two asked by ana, one waiting, one turned down.
    audit = json.loads(trek_run("audit", "--json").stdout)
    assert audit["requests"] == {"ana": {"requests": 2, "pending": 1, "rejected": 1}}
    assert "Seat ana: 2 requests (1 pending, 1 rejected)" in trek_run("audit").stdout
    recap = trek_run("recap")
    assert recap.returncode == 0, recap.stderr
    assert "- ana: 2 requests (1 pending, 1 rejected)" in recap.stdout
    assert json.loads(trek_run("recap", "--json").stdout)["requests"] == audit["requests"]
