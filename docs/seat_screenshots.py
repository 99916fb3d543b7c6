"""Draw docs/images/seat-phone.png and docs/images/seat-gm-request.png: `trek serve` on a BESM
fight with a seat for Ann; her phone (390 × 844, touch) with the ruler out, and the GM's page
with her request pending, its path a ghost on the battle map.

    .venv/bin/python docs/seat_screenshots.py

Needs Debian's chromium (`/usr/bin/chromium`) and the test extra (Playwright for Python); no
browser is downloaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from docs.serve_screenshots import ARGS, serving  # noqa: E402

SETUP = (("init", "Table", "--seed", "3"),
         ("roster", "add-character", "Ann", "--body", "6", "--mind", "4", "--soul", "4"),
         ("roster", "add-character", "Bo", "--body", "4", "--mind", "4", "--soul", "4"),
         ("encounter", "start", "Ford"),
         ("encounter", "join", "Ann", "--at", "0,0"),
         ("encounter", "join", "Bo", "--at", "1,3"),
         ("encounter", "add", "Orc", "--side", "enemy", "--at", "5,4", "--body", "4",
          "--mind", "4", "--soul", "4"),
         ("encounter", "round"))


def trek(folder: str, db: str, *words: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env.update(TREK_DB=db, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "cli", *words], env=env, check=True,
                          capture_output=True, cwd=folder, text=True).stdout


def main() -> None:
    from playwright.sync_api import sync_playwright

    images = ROOT / "docs" / "images"
    binary = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(executable_path=binary, args=ARGS)
        db = str(Path(folder) / "table.db")
        for words in SETUP:
            trek(folder, db, *words)
        key = json.loads(trek(folder, db, "seat", "add", "ana", "--character", "Ann",
                              "--json"))["key"]
        with serving(folder, db) as (gm_url, _):
            base = gm_url.split("/?", 1)[0]
            phone = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                        is_mobile=True, device_scale_factor=2).new_page()
            phone.goto(f"{base}/seat?key={key}")
            phone.wait_for_selector("#live.on")
            gm = browser.new_page(viewport={"width": 1360, "height": 1000})
            gm.goto(gm_url)
            gm.wait_for_selector("#live.on")
            phone.locator('#fight g.combatant[data-name="Ann"]').tap()
            phone.locator('#fight .cell[data-x="3"][data-y="2"]').tap()
            phone.locator("#ruler-text", has_text="squares").wait_for()
            # The page from its top: the campaign's line, the map opened on Ann's token with
            # her path to 3,2, and the ruler's sheet.
            phone.evaluate("() => window.scrollTo(0, 0)")
            phone.screenshot(path=str(images / "seat-phone.png"))
            phone.locator("#ruler-confirm").tap()
            gm.wait_for_selector("#request-list li.request.pending")
            gm.locator("#requests").scroll_into_view_if_needed()
            gm.screenshot(path=str(images / "seat-gm-request.png"), full_page=True)
        browser.close()


if __name__ == "__main__":
    main()
