"""`trek demo --keep FILE`: the demo's store kept, for `trek serve` or any other command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cliruns import ok, refused
from conftest import TrekRun


def test_the_demo_kept_is_a_store_every_command_opens(
        trek_run: Callable[..., TrekRun], tmp_path: Path) -> None:
    kept = tmp_path / "demo.db"
    shown = ok(trek_run("demo", "--keep", str(kept), "--json")).json()
    status = ok(trek_run("status", "--json", db=str(kept))).json()
    # The store holds what the demo showed: the same campaign, at the same point.
    assert status["campaign"] == shown["status"]["campaign"] == "ashes-road"
    assert status["events"] == shown["status"]["events"] == len(shown["log"])
    assert status["position"] == shown["status"]["position"]


def test_the_demo_never_overwrites_a_file(trek_run: Callable[..., TrekRun],
                                          tmp_path: Path) -> None:
    existing = tmp_path / "notes.db"
    existing.write_bytes(b"a GM's own file")
    refused(trek_run("demo", "--keep", str(existing)), "already exists")
    assert existing.read_bytes() == b"a GM's own file"
