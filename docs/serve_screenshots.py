"""Draw docs/images/serve-gm.png, serve-players.png and serve-fight.png: `trek serve` on the
demo's campaign, the GM's page with the ruler out and the players' page with its fog, and the
GM's page of a Shadowrun fight (docs/fights-shadowrun.md's alley) with its round panel; then
docs/images/fight-RULESET.png, a fight in each ruleset with the fight ruler out.

    .venv/bin/python docs/serve_screenshots.py

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


def main() -> None:
    from playwright.sync_api import sync_playwright

    images = ROOT / "docs" / "images"
    binary = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, args=ARGS)
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
