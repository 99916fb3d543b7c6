"""Draw docs/images/serve-gm.png, serve-players.png and serve-fight.png: `trek serve` on the
demo's campaign, the GM's page with the ruler out and the players' page with its fog, and the
GM's page of a Shadowrun fight (docs/fights-shadowrun.md's alley) with its round panel; then
docs/images/fight-RULESET.png, a fight in each ruleset with the fight ruler out; then
docs/images/table-fight-1280.png, table-fight-360.png, table-overland-1280.png and
table-overland-360.png: a fight on a Universal VTT file's picture (docs/examples/mill-cellar.uvtt
with a picture drawn here) and the demo's map under a picture, on a desktop and on a phone.

    .venv/bin/python docs/serve_screenshots.py            # all of them
    .venv/bin/python docs/serve_screenshots.py --table    # the map-table ones only

Needs Debian's chromium (`/usr/bin/chromium`) and the test extra (Playwright for Python); no
browser is downloaded.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cli.besm_demo import play  # noqa: E402
from cli.bootstrap import bootstrap  # noqa: E402
from tracker.app import Trek  # noqa: E402

RULESETS = bootstrap().registry

GM_KEY = "screenshot-gm-secret-0001"
PLAYER_KEY = "screenshot-players-secret-01"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]


@contextmanager
def serving(folder: str, db: str) -> Iterator[tuple[str, str]]:
    """`trek serve` on `db` with the fixed secrets: the GM's and the players' addresses, the
    server stopped by SIGTERM at the end."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env.update(TREK_DB=db, TREK_GM_KEY=GM_KEY, TREK_PLAYER_KEY=PLAYER_KEY, PYTHONPATH=str(ROOT))
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", "0",
                               "--no-open"], env=env, cwd=folder, text=True,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert server.stdout is not None
        gm_url = server.stdout.readline().split(" ", 1)[1].strip()
        players_url = server.stdout.readline().split(" ", 1)[1].strip()
        yield gm_url, players_url
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)


def trek(folder: str, db: str, *words: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env.update(TREK_DB=db, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "cli", *words], env=env, check=True,
                   capture_output=True, cwd=folder)


def live_page(browser: Any, url: str, height: int) -> Any:
    """A page of `url`, once its live stream is connected."""
    page = browser.new_page(viewport={"width": 1360, "height": height})
    page.goto(url)
    page.wait_for_selector("#live.on")
    return page


def played(folder: str, commands: Iterable[list[str]]) -> str:
    """A store in `folder` (with the fights' maps beside it) after `commands`."""
    for name, text in MAPS.items():
        (Path(folder) / name).write_text(text)
    db = str(Path(folder) / "fight.db")
    for words in commands:
        trek(folder, db, *words)
    return db


def cellar_picture(doc: dict[str, Any]) -> bytes:
    """A drawn cellar for the Universal VTT file `doc`: flagstones, its walls as thick dark
    lines, its doors as planks, a table and barrels (as a map drawn elsewhere would be)."""
    import io
    import random

    from PIL import Image, ImageDraw

    per = int(doc["resolution"]["pixels_per_grid"])
    wide, high = (int(doc["resolution"]["map_size"][k]) for k in ("x", "y"))
    rng = random.Random(7)
    image = Image.new("RGB", (wide * per, high * per), (92, 84, 72))
    draw = ImageDraw.Draw(image)
    for y in range(high * 2):
        for x in range(wide * 2):
            shade = rng.randint(-14, 14)
            half = per // 2
            draw.rectangle((x * half + 2, y * half + 2, x * half + half - 2, y * half + half - 2),
                           fill=(150 + shade, 138 + shade, 118 + shade))
    for line in doc["line_of_sight"] + doc.get("objects_line_of_sight", []):
        points = [(p["x"] * per, p["y"] * per) for p in line]
        draw.line(points, fill=(38, 34, 32), width=per // 4, joint="curve")
    for portal in doc["portals"]:
        (a, b) = ((p["x"] * per, p["y"] * per) for p in portal["bounds"])
        draw.line((a, b), fill=(120, 72, 30) if portal["closed"] else (190, 150, 90),
                  width=per // 6)
    draw.rectangle((5 * per + 12, 3 * per + 14, 6 * per + 58, 4 * per + 40), fill=(110, 70, 40),
                   outline=(60, 36, 20), width=4)
    for cx, cy in ((1.5, 4.5), (1.5, 5.3), (7.3, 0.6)):
        draw.ellipse(((cx - 0.32) * per, (cy - 0.32) * per, (cx + 0.32) * per, (cy + 0.32) * per),
                     fill=(130, 88, 50), outline=(70, 44, 24), width=5)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def reach_picture(per: int) -> bytes:
    """A drawn Ashen Reach (cli/besm_demo.py's map, 10×4): grassland, the mountains at 2,1 3,1
    2,2, the ley storm at 3,2, a road and woods."""
    import io
    import random

    from PIL import Image, ImageDraw

    rng = random.Random(3)
    image = Image.new("RGB", (10 * per, 4 * per), (168, 186, 120))
    draw = ImageDraw.Draw(image)
    for _ in range(900):
        x, y = rng.uniform(0, 10 * per), rng.uniform(0, 4 * per)
        green = rng.randint(-25, 15)
        draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=(150 + green, 172 + green, 104 + green))
    draw.line([(0.5 * per, 3.5 * per), (4.5 * per, 3.3 * per), (7.5 * per, 1.6 * per),
               (9.5 * per, 1.5 * per)], fill=(176, 146, 100), width=per // 6, joint="curve")
    for cx, cy in ((7.6, 3.2), (8.4, 3.5), (8.9, 2.8), (0.6, 0.5), (1.2, 0.3), (5.3, 0.4)):
        draw.ellipse(((cx - 0.3) * per, (cy - 0.3) * per, (cx + 0.3) * per, (cy + 0.3) * per),
                     fill=(70, 110, 60), outline=(40, 70, 36), width=2)
    for x, y in ((2, 1), (3, 1), (2, 2)):
        left, top = x * per, y * per
        for dx, scale in ((0.3, 0.8), (0.65, 1.0)):
            peak = (left + dx * per, top + (1 - scale) * per + 0.1 * per)
            base = top + 0.95 * per
            draw.polygon([peak, (peak[0] - 0.36 * per, base), (peak[0] + 0.36 * per, base)],
                         fill=(120, 112, 104), outline=(70, 64, 60))
            draw.polygon([peak, (peak[0] - 0.1 * per, peak[1] + 0.18 * per),
                          (peak[0] + 0.1 * per, peak[1] + 0.18 * per)], fill=(240, 240, 236))
    cx, cy = 3.5 * per, 2.5 * per
    for r, colour in ((0.45, (120, 80, 160)), (0.32, (150, 100, 190)), (0.18, (190, 150, 230))):
        draw.ellipse((cx - r * per, cy - r * per, cx + r * per, cy + r * per), fill=colour)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def table_shots(browser: Any, images: Path) -> None:
    """The map table: a fight on a picture and the overland map under one, on a desktop (the
    ruler out on a dragged token) and on a phone."""
    import base64
    import json

    from cli.besm_demo import DEMO_MAP

    with tempfile.TemporaryDirectory(prefix="trek-shots-") as folder:
        doc = json.loads((ROOT / "docs" / "examples" / "mill-cellar.uvtt").read_text())
        doc["image"] = base64.b64encode(cellar_picture(doc)).decode("ascii")
        (Path(folder) / "mill-cellar.uvtt").write_text(json.dumps(doc))
        db = played(folder, (
            ["init", "Mill Road", "--seed", "2"],
            ["roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"],
            ["roster", "add-character", "Bram", "--body", "4", "--mind", "4", "--soul", "4"],
            ["encounter", "start", "The mill cellar", "--map", "mill-cellar.uvtt"],
            ["encounter", "join", "Kira", "--at", "1,0"],
            ["encounter", "join", "Bram", "--at", "0,4"],
            ["encounter", "add", "Rat king", "--side", "enemy", "--at", "6,4", "--body", "3",
             "--mind", "2", "--soul", "2"],
            ["encounter", "add", "Miller", "--side", "ally", "--at", "2,5", "--body", "3",
             "--mind", "3", "--soul", "3"],
            ["encounter", "round"],
            ["encounter", "move", "Bram", "E", "E"]))
        with serving(folder, db) as (gm_url, players_url):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(gm_url)
            page.wait_for_selector("#live.on")
            token = page.locator('#fight g.combatant[data-name="Kira"] .token-shape')
            box = token.bounding_box()
            cell = page.locator('#fight .cell[data-x="4"][data-y="1"]').bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.mouse.move(cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2,
                            steps=8)
            page.wait_for_selector("#ruler.band-0, #ruler.band-1, #ruler.refused")
            page.screenshot(path=str(images / "table-fight-1280.png"))
            page.mouse.up()
            phone = browser.new_context(viewport={"width": 360, "height": 740},
                                        device_scale_factor=2, is_mobile=True, has_touch=True)
            shot = phone.new_page()
            shot.goto(players_url)
            shot.wait_for_selector("#live.on")
            shot.screenshot(path=str(images / "table-fight-360.png"))
            phone.close()
    with tempfile.TemporaryDirectory(prefix="trek-shots-") as folder:
        (Path(folder) / "reach.png").write_bytes(reach_picture(64))
        (Path(folder) / "reach.toml").write_text(DEMO_MAP.replace(
            '[map]\n', '[map]\nimage = "reach.png"\npixels_per_square = 64\n', 1))
        db = played(folder, (
            ["init", "Ashes Road", "--map", "reach.toml", "--at", "1,1", "--seed", "7"],
            ["roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"],
            ["roster", "add-mount", "Dusty", "--move", "ground-speed=2", "--rider", "Kira"],
            ["day", "start"],
            ["move", "S", "SE"],
            ["move", "E"]))
        with serving(folder, db) as (gm_url, _):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(gm_url)
            page.wait_for_selector("#live.on")
            page.click('#map rect.cell[data-x="3"][data-y="2"]')
            page.wait_for_selector("#ruler-text.bad")
            page.screenshot(path=str(images / "table-overland-1280.png"))
            phone = browser.new_context(viewport={"width": 360, "height": 740},
                                        device_scale_factor=2, is_mobile=True, has_touch=True)
            shot = phone.new_page()
            shot.goto(gm_url)
            shot.wait_for_selector("#live.on")
            shot.screenshot(path=str(images / "table-overland-360.png"))
            phone.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    images = ROOT / "docs" / "images"
    binary = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, args=ARGS)
        table_shots(browser, images)
        if "--table" in sys.argv[1:]:
            browser.close()
            print(f"wrote {images}/table-*.png")
            return
        with tempfile.TemporaryDirectory(prefix="trek-shots-") as folder:
            db = str(Path(folder) / "table.db")
            with Trek.open(db, rulesets=RULESETS, create=True, gm="demo") as made:
                play(made)
            trek(folder, db, "day", "start")
            trek(folder, db, "session", "start", "The road north")
            with serving(folder, db) as (gm_url, players_url):
                page = live_page(browser, gm_url, 860)
                page.click('#map rect.cell[data-x="9"][data-y="3"]')
                page.locator("#ruler-text", has_text="cost").wait_for()
                page.screenshot(path=str(images / "serve-gm.png"))
                live_page(browser, players_url, 860).screenshot(
                    path=str(images / "serve-players.png"))
        with tempfile.TemporaryDirectory(prefix="trek-shots-") as folder:
            db = played(folder, FIGHT)
            with serving(folder, db) as (gm_url, _):
                live_page(browser, gm_url, 1040).screenshot(
                    path=str(images / "serve-fight.png"))
        for ruleset, (setup, mover, (x, y)) in RULERS.items():
            with tempfile.TemporaryDirectory(prefix="trek-shots-") as folder:
                db = played(folder, setup)
                with serving(folder, db) as (gm_url, _):
                    page = live_page(browser, gm_url, 1000)
                    page.locator(f'#fight g.combatant[data-name="{mover}"]').click()
                    page.locator(f'#fight .cell[data-x="{x}"][data-y="{y}"]').click()
                    page.wait_for_selector("#ruler.band-0, #ruler.band-1, #ruler.band-2")
                    page.screenshot(path=str(images / f"fight-{ruleset}.png"))
        browser.close()
    print(f"wrote {images / 'serve-gm.png'}, {images / 'serve-players.png'}, "
          f"{images / 'serve-fight.png'} and a fight-RULESET.png for each ruleset")


# docs/fights-shadowrun.md's turn, up to the interception.
FIGHT = (["init", "Seattle", "--ruleset", "shadowrun", "--seed", "7"],
         ["roster", "add-character", "Kira", "--quickness", "5", "--metatype", "elf",
          "--skill", "athletics=3"],
         ["roster", "add-character", "Dvorak", "--quickness", "4", "--metatype", "dwarf"],
         ["encounter", "start", "Redmond Alley", "--map",
          str(ROOT / "docs" / "examples" / "redmond-alley.toml")],
         ["encounter", "join", "Kira", "--at", "0,0"],
         ["encounter", "join", "Dvorak", "--at", "0,3"],
         ["encounter", "add", "Ganger", "--side", "enemy", "--at", "5,1", "--quickness", "4",
          "--metatype", "ork", "--skill", "athletics=2"],
         ["encounter", "round", "--passes", "Kira=2", "--passes", "Ganger=3"],
         ["encounter", "move", "Kira", "--run", "E", "E", "E", "E"],
         ["encounter", "move", "Dvorak", "NE", "E"],
         ["encounter", "sprint", "Kira", "--roll", "2"],
         ["encounter", "pass"],
         ["encounter", "move", "Kira", "E", "E", "E"],
         ["encounter", "intercept", "Kira", "--by", "Ganger", "--at", "6,0"])

# Battle maps of docs/fights-movepoints.md and docs/fights-cypher-rounds.md.
MAPS = {
    "ford.toml": """\
[map]
name = "The Ford"
rows = ["..........", "..~~~#....", "..~~~..^..", ".........."]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"~" = { terrain = "water" }
"^" = { terrain = "open", name = "scree", cost = 8, poor_footing = true }
""",
    "hold.toml": """\
[map]
name = "Derelict hold"
rows = ["##########", "#........#", "#..::,,..#", "#..ww^^..#", "#zzzzzz..#", "#zzzzzz..#",
        "##########"]

[legend]
"#" = { terrain = "wall" }
"." = { terrain = "open" }
":" = { terrain = "difficult" }
"," = { terrain = "rough" }
"w" = { terrain = "water" }
"^" = { terrain = "high-gravity" }
"z" = { terrain = "zero-gravity" }
""",
}

# A fight in each ruleset: its commands, whom the ruler measures for, and the cell it points at.
RULERS: dict[str, tuple[list[list[str]], str, tuple[int, int]]] = {
    "besm": ([["init", "Kessel", "--ruleset", "besm", "--seed", "2"],
              ["roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"],
              ["roster", "add-character", "Bram", "--body", "4", "--mind", "4", "--soul", "4"],
              ["encounter", "start", "Kessel Pass", "--map",
               str(ROOT / "docs" / "examples" / "kessel-pass-battle.toml")],
              ["encounter", "join", "Kira", "--at", "0,0"],
              ["encounter", "join", "Bram", "--at", "0,3"],
              ["encounter", "add", "Bandit", "--side", "enemy", "--at", "6,1", "--body", "4",
               "--mind", "3", "--soul", "3"],
              ["encounter", "add", "Bandit 2", "--side", "enemy", "--at", "7,3", "--body", "4",
               "--mind", "3", "--soul", "3"],
              ["encounter", "round"],
              ["encounter", "move", "Bram", "E", "E", "E"],
              ["encounter", "prone", "Bandit 2"]],
             "Kira", (5, 0)),
    "gurps": ([["init", "Mill Road", "--ruleset", "gurps", "--seed", "3"],
               ["roster", "add-character", "Kira", "--basic-move", "5", "--basic-speed",
                "5.75"],
               ["encounter", "start", "Brawl at the mill"],
               ["encounter", "join", "Kira", "--at", "1,3"],
               ["encounter", "add", "Orc", "--side", "enemy", "--at", "4,0", "--facing", "S",
                "--basic-move", "6", "--basic-speed", "6"],
               ["encounter", "round"],
               ["encounter", "move", "Kira", "N", "N", "R", "SE", "--end-facing", "NE"],
               ["encounter", "posture", "Orc", "crouching"],
               ["encounter", "move", "Orc", "S"],
               ["encounter", "round"]],
              "Kira", (4, 3)),
    "shadowrun": ([*FIGHT[:-1]], "Dvorak", (3, 3)),
    "movepoints": ([["init", "Reef", "--ruleset", "movepoints"],
                    ["roster", "add-character", "Kira", "--full-move", "13"],
                    ["roster", "add-character", "Pia", "--full-move", "6"],
                    ["encounter", "start", "The Ford", "--map", "ford.toml"],
                    ["encounter", "join", "Kira", "--at", "0,0"],
                    ["encounter", "join", "Pia", "--at", "6,2"],
                    ["encounter", "add", "Goblin", "--side", "enemy", "--at", "9,3",
                     "--full-move", "6"],
                    ["encounter", "round"],
                    ["encounter", "act", "Pia", "full"],
                    ["encounter", "move", "Pia", "E"],
                    ["encounter", "act", "Kira", "move"]],
                   "Kira", (5, 0)),
    "cypher": ([["init", "Derelict", "--ruleset", "cypher", "--seed", "4"],
                ["roster", "add-character", "Kira", "--might", "12", "--speed", "14"],
                ["encounter", "start", "Boarding", "--map", "hold.toml"],
                ["encounter", "join", "Kira", "--at", "1,1"],
                ["encounter", "add", "Drone", "--side", "enemy", "--at", "1,4", "--might", "8"],
                ["encounter", "round"],
                ["encounter", "push", "Drone", "E", "--feet", "10", "--roll", "9"]],
               "Kira", (7, 2)),
}


if __name__ == "__main__":
    main()
