"""Walls and doors between squares (RULES §16) on random maps: every `--to` path keeps to the
rules, and it is as short as a plain breadth-first search of the same rules says it can be.

The search here is written from RULES §16 alone, apart from domain/edges.py: a step between side
by side squares crosses the edge they share; a diagonal step passes the corner point they share,
and is refused when a wall or a closed door lies on any of the four edges that end there.
"""

from __future__ import annotations

from collections import deque
from datetime import UTC, datetime
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.campaign import Campaign, Stamp
from domain.commands.encounter import EnterCombatant, MoveCombatant, StartEncounter, StartRound
from domain.commands.roster import AddCharacter
from domain.errors import RuleViolation
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.mapformats.tomlfile import load_battle_map

SIZE = 5
STAMP = Stamp("gm", datetime(2024, 5, 1, tzinfo=UTC))

# An edge: ("h", x, y) from grid point (x, y) to (x+1, y); ("v", x, y) from (x, y) to (x, y+1).
Edge = tuple[str, int, int]
edges = st.one_of(
    st.tuples(st.just("h"), st.integers(0, SIZE - 1), st.integers(0, SIZE)),
    st.tuples(st.just("v"), st.integers(0, SIZE), st.integers(0, SIZE - 1)))
cells = st.builds(Square, st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))


def ends(edge: Edge) -> tuple[tuple[int, int], tuple[int, int]]:
    kind, x, y = edge
    return ((x, y), (x + 1, y)) if kind == "h" else ((x, y), (x, y + 1))


def map_text(walls: set[Edge], doors: dict[Edge, bool]) -> str:
    lines = ["[map]", 'name = "Random"', "rows = [" + ", ".join(['"' + "." * SIZE + '"']
                                                               * SIZE) + "]",
             "[legend]", '"." = { terrain = "open" }']
    for edge in sorted(walls):
        a, b = ends(edge)
        lines += ["[[wall]]", f"points = [[{a[0]}, {a[1]}], [{b[0]}, {b[1]}]]"]
    for edge, closed in sorted(doors.items()):
        a, b = ends(edge)
        lines += ["[[door]]", f"from = [{a[0]}, {a[1]}]", f"to = [{b[0]}, {b[1]}]",
                  f"closed = {'true' if closed else 'false'}"]
    return "\n".join(lines) + "\n"


def blocked(closed: set[Edge], a: Square, b: Square) -> bool:
    """RULES §16 for the step from `a` to its neighbour `b`, on the closed edges."""
    if a.x == b.x:
        return ("h", a.x, max(a.y, b.y)) in closed
    if a.y == b.y:
        return ("v", max(a.x, b.x), a.y) in closed
    px, py = max(a.x, b.x), max(a.y, b.y)
    return bool({("h", px - 1, py), ("h", px, py), ("v", px, py - 1), ("v", px, py)} & closed)


def fewest_steps(closed: set[Edge], start: Square, goal: Square) -> int | None:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            return seen[here]
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                there = Square(here.x + dx, here.y + dy)
                if ((dx, dy) == (0, 0) or there in seen or not (0 <= there.x < SIZE)
                        or not (0 <= there.y < SIZE) or blocked(closed, here, there)):
                    continue
                seen[there] = seen[here] + 1
                queue.append(there)
    return None


@settings(max_examples=60, deadline=None)
@given(st.sets(edges, max_size=14), st.dictionaries(edges, st.booleans(), max_size=4), cells,
       cells)
def test_every_path_keeps_to_the_walls_and_is_as_short_as_they_allow(
        walls: set[Edge], doors: dict[Edge, bool], start: Square, goal: Square) -> None:
    # Two doors may not share a name ("door at X,Y" after the first point).
    named: dict[tuple[int, int], Edge] = {}
    for edge in doors:
        named.setdefault(ends(edge)[0], edge)
    doors = {edge: doors[edge] for edge in named.values()}
    c = Campaign.start(STAMP, name="Random", ruleset="besm", rulesets=RULESETS, seed=1,
                       game_map=None, at=None)
    # Body 12 and Speed 20: more Speed (32) than any path on a 5 × 5 map needs (24 at most).
    c.handle(AddCharacter(CharacterOptions(name="Kira", attributes={"speed": 20},
                                           extra={"body": 12, "mind": 3, "soul": 3})))
    legend = RULESETS.named("besm").battle_legend
    c.handle(StartEncounter("Random", load_battle_map(map_text(walls, doors), legend)))
    c.handle(EnterCombatant(name="Kira", at=start))
    c.handle(StartRound())
    # A door on a wall's edge stands in place of the wall there.
    closed = (walls - doors.keys()) | {edge for edge, shut in doors.items() if shut}
    expected = fewest_steps(closed, start, goal)
    if start == goal:
        return
    try:
        event = c.handle(MoveCombatant(name="Kira", to=goal))
    except RuleViolation:
        assert expected is None
        return
    path = [Square(*cell) for cell in event.path]
    assert (path[0], path[-1]) == (start, goal)
    assert all(not blocked(closed, a, b) for a, b in pairwise(path))
    assert event.cost == len(path) - 1 == expected
