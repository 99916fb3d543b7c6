"""`trek demo --keep FILE`: the demo's store kept, for `trek serve` or any other command."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import docpages
from cliruns import ok, refused
from conftest import TrekRun

from cli.besm_demo import DEMO_MAP


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


def test_the_demo_plays_the_readme_journey(trek_run: Callable[..., TrekRun],
                                           tmp_path: Path) -> None:
    """`trek demo` is the README's three days: the same map, party, dice and events."""
    root = Path(__file__).resolve().parents[2]
    assert (root / "docs" / "examples" / "ashen-reach.toml").read_text() == DEMO_MAP
    readme = str(tmp_path / "readme.db")
    for line in docpages.trek_lines("README.md", "## A three-day journey"):
        words = shlex.split(line)[1:]
        if words[0] in ("status", "log"):
            continue
        words = [str(root / w) if w.endswith(".toml") else w for w in words]
        ok(trek_run(*words, db=readme))
    told = ok(trek_run("log", "--json", db=readme)).json()
    shown = ok(trek_run("demo", "--json")).json()

    def played(log: list[dict[str, object]]) -> list[dict[str, object]]:
        # Everything but when, and by which GM, each event was recorded.
        return [{k: v for k, v in entry.items() if k not in ("at", "gm", "recorded_at")}
                for entry in log]

    assert played(shown["log"]) == played(told)
    assert shown["status"]["position"] == {"x": 8, "y": 1}
    assert shown["status"] == ok(trek_run("status", "--json", db=readme)).json()
