"""Draw docs/images/uvtt-sample-file.png and uvtt-sample-trek.png: a real Dungeondraft export
(Imagix/uvtt2fgu's exampleMaps/sampleMap.dd2vtt, BSD 3-Clause; tests/fixtures/maps keeps it
with its picture emptied) as the file itself shows it, its own picture with its walls and
doors drawn over it from the file's data, and as Trek draws it after `encounter start --map`
with Kira's move through the open door (`trek encounter show --svg`, made a PNG by chromium).

    .venv/bin/python docs/uvtt_pictures.py PATH/TO/sampleMap.dd2vtt

Needs the file as published (its `image` embedded), Debian's chromium and the test extra
(Playwright for Python).
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
SIDE = 640  # each picture's width in pixels


def file_picture(doc: dict[str, Any]) -> bytes:
    """The file's own picture with its walls (red), object outlines (orange) and doors (closed
    blue, open green) drawn where its points say, relative to `map_origin`."""
    from PIL import Image, ImageDraw

    resolution = doc["resolution"]
    origin = resolution["map_origin"]
    image = Image.open(io.BytesIO(base64.b64decode(doc["image"]))).convert("RGB")
    cells = resolution["map_size"]["x"]
    per = SIDE / cells
    image = image.resize((SIDE, round(resolution["map_size"]["y"] * per)))
    draw = ImageDraw.Draw(image)

    def at(point: dict[str, float]) -> tuple[float, float]:
        return ((point["x"] - origin["x"]) * per, (point["y"] - origin["y"]) * per)

    for line in doc.get("line_of_sight", []):
        draw.line([at(p) for p in line], fill=(220, 30, 30), width=5, joint="curve")
    for line in doc.get("objects_line_of_sight", []):
        draw.line([at(p) for p in line], fill=(255, 140, 0), width=4, joint="curve")
    for portal in doc.get("portals", []):
        colour = (30, 90, 230) if portal["closed"] else (20, 170, 60)
        draw.line([at(p) for p in portal["bounds"]], fill=colour, width=9)
    out = io.BytesIO()
    # Kept under 300 KB: the picture has few colours once its walls are drawn.
    image.quantize(256).save(out, "PNG", optimize=True)
    return out.getvalue()


def trek(folder: str, *words: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env.update(TREK_DB=str(Path(folder) / "sample.db"), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "cli", *words], env=env, check=True,
                          capture_output=True, text=True, cwd=folder).stdout


def trek_picture(source: Path) -> bytes:
    """What Trek draws: the file imported as a battle map, Kira moved from 4,6 to 6,7, and
    `encounter show --svg` rendered by chromium (through Playwright), SIDE pixels wide."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "sample.dd2vtt").write_bytes(source.read_bytes())
        trek(folder, "init", "Sample", "--seed", "3")
        trek(folder, "roster", "add-character", "Kira", "--body", "6", "--mind", "5",
             "--soul", "4")
        trek(folder, "encounter", "start", "Sample", "--map", "sample.dd2vtt")
        trek(folder, "encounter", "join", "Kira", "--at", "4,6")
        trek(folder, "encounter", "round")
        trek(folder, "encounter", "move", "Kira", "--to", "6,7")
        svg = Path(folder) / "after.svg"
        trek(folder, "encounter", "show", "--svg", str(svg))
        found = re.search(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"',
                          svg.read_text(encoding="utf-8"))
        assert found, "the SVG has no width and height"
        wide, high = (round(float(v)) for v in found.groups())
        shot = Path(folder) / "after.png"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": wide, "height": high},
                                    device_scale_factor=2)
            # "load" waits for the picture under the grid, a large data URI.
            page.goto(svg.as_uri(), wait_until="load")
            page.screenshot(path=str(shot))
            browser.close()
        image = Image.open(shot).convert("RGB")
        image = image.resize((SIDE, round(image.height * SIDE / image.width)))
        out = io.BytesIO()
        image.save(out, "PNG", optimize=True)
        return out.getvalue()


def main(path: str) -> None:
    source = Path(path)
    doc = json.loads(source.read_text(encoding="utf-8"))
    (IMAGES / "uvtt-sample-file.png").write_bytes(file_picture(doc))
    (IMAGES / "uvtt-sample-trek.png").write_bytes(trek_picture(source))


if __name__ == "__main__":
    main(sys.argv[1])
