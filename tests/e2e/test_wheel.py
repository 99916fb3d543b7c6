"""An installed Trek is a wheel, not the checkout: the wheel holds every package of the four
layers (each ruleset is a subpackage of domain/) and the server's templates and static files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("tracker", "domain", "projections", "cli")


@pytest.mark.slow
def test_the_wheel_holds_every_module_and_the_pages_files(tmp_path: Path) -> None:
    # Built from a copy, so that nothing is written into the checkout (setuptools leaves a
    # build/ folder behind, which a later build would reuse).
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for layer in LAYERS:
        shutil.copytree(ROOT / layer, source / layer,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
         str(source)], capture_output=True, text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("trek-*.whl")
    inside = set(zipfile.ZipFile(wheel).namelist())
    checkout = {path.relative_to(ROOT).as_posix()
                for layer in LAYERS for path in (ROOT / layer).rglob("*.py")}
    assert checkout, "the checkout has no modules?"
    assert checkout - inside == set()
    for kept in ("cli/web/templates/page.html", "cli/web/static/htmx.min.js",
                 "cli/web/static/trek.js", "cli/web/static/trek.css",
                 "cli/web/static/panzoom.min.js", "cli/web/static/panzoom-LICENSE.txt",
                 "cli/web/static/table.js", "cli/web/static/seats.js"):
        assert kept in inside
