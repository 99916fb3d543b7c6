"""Every battle picture dresses a token with what its ruleset keeps of it (the issue's prone,
posture, stunned, in transit, intercepted, sprinting and drifting): a tag on the token in
`encounter show --svg` (and so on the GM's and the players' pages), and the same words on its
line of the key."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

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
