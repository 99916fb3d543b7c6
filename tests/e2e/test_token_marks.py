"""Every battle picture dresses a token with what its ruleset keeps of it (the issue's prone,
posture, stunned, in transit, intercepted, sprinting and drifting): a tag on the token in
`encounter show --svg` (and so on the GM's and the players' pages), and the same words on its
line of the key."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cliruns import ok
from conftest import TrekRun

RAMP = """\
[map]
name = "Ramp"
rows = ["..^."]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "open", name = "scree", cost = 8 }
"""

SPINE = """\
[map]
name = "Spine"
rows = ["#zzzzzzzzz"]

[legend]
"#" = { terrain = "wall" }
"z" = { terrain = "zero-gravity" }
"""

CASES = {
    # BESM §7: `encounter prone` lays it down.
    "besm": ((("roster", "add-character", "Ann", "--body", "5", "--mind", "3", "--soul", "3"),
              ("encounter", "start", "Ford"),
              ("encounter", "join", "Ann", "--at", "0,0"),
              ("encounter", "round"),
              ("encounter", "prone", "Ann")),
             {"Ann": ["prone"]}),
    # GURPS §8: any posture but standing.
    "gurps": ((("roster", "add-character", "Gus", "--basic-move", "5", "--basic-speed", "5"),
               ("roster", "add-character", "Ida", "--basic-move", "5", "--basic-speed", "5"),
               ("encounter", "start", "Keep"),
               ("encounter", "join", "Gus", "--at", "2,2"),
               ("encounter", "join", "Ida", "--at", "4,2"),
               ("encounter", "round"),
               ("encounter", "posture", "Gus", "kneeling")),
              {"Gus": ["kneeling"], "Ida": []}),
    # Shadowrun §9: two sprint successes add 2 to next pass's Quickness; a free attack that
    # hurt stops the mover: intercepted.
    "shadowrun": ((("roster", "add-character", "Kira", "--quickness", "5", "--metatype", "elf",
                    "--skill", "athletics=3"),
                   ("roster", "add-character", "Rin", "--quickness", "5", "--metatype",
                    "human"),
                   ("encounter", "start", "Alley"),
                   ("encounter", "join", "Kira", "--at", "0,0"),
                   ("encounter", "join", "Rin", "--at", "0,4"),
                   ("encounter", "add", "Ganger", "--side", "enemy", "--at", "2,5",
                    "--quickness", "4", "--metatype", "ork"),
                   ("encounter", "round", "--passes", "Kira=2"),
                   ("encounter", "sprint", "Kira", "--roll", "2"),
                   ("encounter", "move", "Rin", "E"),
                   ("encounter", "intercept", "Rin", "--by", "Ganger", "--at", "1,4"),
                   ("encounter", "pass")),
                  {"Kira": ["sprint +2"], "Rin": ["intercepted"], "Ganger": []}),
    # Move-Points §10: a tile dearer than the Full Move is paid over rounds (in transit); a
    # stunned combatant says so.
    "movepoints": ((("roster", "add-character", "Mo", "--full-move", "6"),
                    ("roster", "add-character", "Pia", "--full-move", "6"),
                    ("encounter", "start", "Ramp", "--map", "ramp.toml"),
                    ("encounter", "join", "Mo", "--at", "1,0"),
                    ("encounter", "join", "Pia", "--at", "0,0"),
                    ("encounter", "round"),
                    ("encounter", "act", "Mo", "full"),
                    ("encounter", "move", "Mo", "E"),
                    ("encounter", "condition", "Pia", "stunned")),
                   {"Mo": ["in transit"], "Pia": ["stunned"]}),
    # Cypher §11: a push that stops short of anything drifts on.
    "cypher": ((("roster", "add-character", "Cy"),
                ("encounter", "start", "Spine", "--map", "spine.toml"),
                ("encounter", "join", "Cy", "--at", "1,0"),
                ("encounter", "round"),
                ("encounter", "push", "Cy", "E", "--feet", "10", "--roll", "20")),
               {"Cy": ["drifting"]}),
}


@pytest.mark.parametrize("ruleset", list(CASES))
def test_a_token_wears_what_its_ruleset_keeps_of_it(
        ruleset: str, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    (tmp_path / "ramp.toml").write_text(RAMP)
    (tmp_path / "spine.toml").write_text(SPINE)
    setup, expected = CASES[ruleset]
    ok(trek_run("init", "Table", "--ruleset", ruleset, "--seed", "5"))
    for words in setup:
        ok(trek_run(*words))
    ok(trek_run("encounter", "show", "--svg", "fight.svg"))
    svg = (tmp_path / "fight.svg").read_text()
    for name, words in expected.items():
        token = re.search(rf'<g class="combatant [a-z]+" data-name="{name}".*?<title>', svg)
        assert token is not None, name
        assert re.findall(r'data-mark="([^"]+)"', token.group(0)) == words
        key_line = re.search(rf">[A-Z]+: {name} \([a-z]+\) at [^<]*</text>", svg)
        assert key_line is not None, name
        assert key_line.group(0).endswith("".join(f" · {w}" for w in words) + "</text>")


def test_tags_of_neighbouring_tokens_stay_in_their_cells_in_chromium(
        tmp_path: Path, trek_run: Callable[..., TrekRun], chromium_page: Any) -> None:
    """Three fighters on neighbouring cells, one wearing two tags (sprinting and intercepted):
    drawn by Chromium, no tag overlaps another tag or another fighter's token, and each stays
    inside its own cell."""
    for words in (("init", "Seattle", "--ruleset", "shadowrun"),
                  ("roster", "add-character", "Kira", "--quickness", "5", "--metatype", "elf",
                   "--skill", "athletics=3"),
                  ("roster", "add-character", "Rin", "--quickness", "5", "--metatype", "human",
                   "--skill", "athletics=2"),
                  ("encounter", "start", "Alley"),
                  ("encounter", "join", "Kira", "--at", "0,0"),
                  ("encounter", "join", "Rin", "--at", "1,0"),
                  ("encounter", "add", "Ganger", "--side", "enemy", "--at", "1,2",
                   "--quickness", "4", "--metatype", "ork"),
                  ("encounter", "round", "--passes", "Kira=2", "--passes", "Rin=2"),
                  ("encounter", "sprint", "Kira", "--roll", "2"),
                  ("encounter", "sprint", "Rin", "--roll", "1"),
                  ("encounter", "pass"),
                  ("encounter", "move", "Kira", "S"),
                  ("encounter", "intercept", "Kira", "--by", "Ganger", "--at", "0,1"),
                  ("encounter", "show", "--svg", "alley.svg")):
        ok(trek_run(*words))
    chromium_page.goto((tmp_path / "alley.svg").as_uri())
    found = chromium_page.eval_on_selector_all(
        "g.combatant",
        "nodes => nodes.map(n => { const box = e => { const b = e.getBBox(); "
        "return [b.x, b.y, b.width, b.height]; }; "
        "return {name: n.dataset.name, token: box(n.querySelector('.token-shape')), "
        "label: box(n.querySelector('text.label')), "
        "tags: [...n.querySelectorAll('.token-mark')].map(t => [t.dataset.mark, box(t)])}; })")
    tokens = {f["name"]: f for f in found}
    assert [mark for mark, _ in tokens["Kira"]["tags"]] == ["intercepted", "sprint +2"]
    assert [mark for mark, _ in tokens["Rin"]["tags"]] == ["sprint +1"]
    cells = chromium_page.eval_on_selector_all(
        "polygon.cell", "nodes => Object.fromEntries(nodes.map(n => { const b = n.getBBox(); "
        "return [n.dataset.x + ',' + n.dataset.y, [b.x, b.y, b.width, b.height]]; }))")
    where = {"Kira": "0,1", "Rin": "1,0", "Ganger": "1,2"}

    def overlaps(a: list[float], b: list[float]) -> bool:
        return (min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]) > 0.5
                and min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]) > 0.5)

    tags = [(name, box) for name, f in tokens.items() for _, box in f["tags"]]
    for name, box in tags:
        cell = cells[where[name]]
        assert cell[0] - 0.5 <= box[0], name
        assert box[0] + box[2] <= cell[0] + cell[2] + 0.5, name
        assert cell[1] - 0.5 <= box[1], name
        assert box[1] + box[3] <= cell[1] + cell[3] + 0.5, name
        for other, f in tokens.items():
            if other != name:
                assert not overlaps(box, f["token"]), (name, other)
        assert sum(overlaps(box, other) for _, other in tags) == 1  # itself only
        # A tag never covers its own token's label.
        assert not overlaps(box, tokens[name]["label"]), name
