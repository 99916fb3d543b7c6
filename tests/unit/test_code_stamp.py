"""The code stamp a kept document carries tells one code from another by each source file's
path, size and modification time (projections/stored_status.py, `source_stamp`)."""

from __future__ import annotations

import os
from pathlib import Path

from projections.stored_status import UNKNOWN_CODE, code_stamp, source_stamp


def _tree(root: Path) -> Path:
    (root / "domain" / "besm").mkdir(parents=True)
    (root / "tracker").mkdir()
    (root / "domain" / "rules.py").write_text("SPEED = 3\n")
    (root / "domain" / "besm" / "events.py").write_text("KIND = 'moved'\n")
    (root / "tracker" / "app.py").write_text("OPEN = True\n")
    for number, path in enumerate(sorted(root.rglob("*.py"))):
        os.utime(path, ns=(1_700_000_000_000_000_000 + number, 1_700_000_000_000_000_000 + number))
    return root


def test_the_same_sources_give_the_same_stamp(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    first = source_stamp(str(root), ("domain", "tracker"))
    assert first == source_stamp(str(root), ("domain", "tracker"))
    assert len(first) == 32
    assert first != UNKNOWN_CODE


def test_any_edit_to_a_source_changes_the_stamp(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    before = source_stamp(str(root), ("domain", "tracker"))
    rules = root / "domain" / "besm" / "events.py"
    times = rules.stat().st_mtime_ns
    # The same size, another time: an edit of one character.
    rules.write_text("KIND = 'mover'\n")
    os.utime(rules, ns=(times + 1_000, times + 1_000))
    edited = source_stamp(str(root), ("domain", "tracker"))
    assert edited != before
    # Another size at the time it had: a file grown by an edit whose time was put back.
    rules.write_text("KIND = 'moved on'\n")
    os.utime(rules, ns=(times, times))
    assert source_stamp(str(root), ("domain", "tracker")) not in (before, edited)
    # A new module counts; what Python caches beside the sources does not.
    (root / "tracker" / "new.py").write_text("")
    added = source_stamp(str(root), ("domain", "tracker"))
    (root / "tracker" / "__pycache__").mkdir()
    (root / "tracker" / "__pycache__" / "app.py").write_text("cached")
    assert source_stamp(str(root), ("domain", "tracker")) == added


def test_code_without_its_sources_cannot_be_told_apart(tmp_path: Path) -> None:
    (tmp_path / "domain").mkdir()
    (tmp_path / "domain" / "rules.pyc").write_bytes(b"\0")
    assert source_stamp(str(tmp_path), ("domain",)) == UNKNOWN_CODE


def test_trek_stamps_its_own_three_packages() -> None:
    root = Path(__file__).resolve().parents[2]
    assert code_stamp() == source_stamp(str(root), ("domain", "projections", "tracker"))
