"""`trek party split|merge|use|list` and `--party` on the overland commands (RULES.md §15), in
process through `trek_run`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cliruns import ok, recorded, refused, usage_error
from conftest import TrekRun
from partypictures import Drawn, drawn, hue, hue_apart

Run = Callable[..., TrekRun]

MAP = """\
[map]
name = "Long Road"
rows = [
  "..........",
  "..........",
]

[legend]
"." = { terrain = "open" }
"""


def table(run: Run, tmp_path: Path) -> None:
    """Kira rides Dusty (ground-speed 2: 4 squares a day); Oren walks (1); five provisions."""
    (tmp_path / "road.toml").write_text(MAP)
    ok(run("init", "Long Road", "--map", "road.toml", "--at", "0,1", "--seed", "3"))
    ok(run("roster", "add-character", "Kira", "--body", "5", "--mind", "4", "--soul", "3"))
    ok(run("roster", "add-character", "Oren", "--body", "4", "--mind", "4", "--soul", "4"))
    ok(run("roster", "add-mount", "Dusty", "--move", "ground-speed=2", "--rider", "Kira"))
    ok(run("supplies", "set", "provisions=5"))                                          # 5


def status(run: Run, *args: str) -> dict[str, Any]:
    document: dict[str, Any] = ok(run("status", "--json", *args)).json()
    return document


def events(run: Run) -> int:
    return int(status(run)["events"])


def test_split_move_each_party_and_merge_from_the_command_line(
        trek_run: Run, tmp_path: Path) -> None:
    table(trek_run, tmp_path)
    split = recorded(trek_run("party", "split", "riders", "--member", "Kira", "--member",
                              "Dusty", "--supplies", "provisions=2", "--json"), 6, "PartySplit")
    assert (split["party"], split["members"]) == ("main", ["Kira", "Dusty"])
    listing = ok(trek_run("party", "list", "--json")).json()
    assert [(p["name"], p["members"], p["supplies"]["provisions"], p["in_use"])
            for p in listing] == [("main", ["Oren"], 3, True),
                                  ("riders", ["Dusty", "Kira"], 2, False)]
    day = recorded(trek_run("day", "start", "--party", "riders", "--json"), 7, "DayStarted")
    assert (day["party"], day["budget"]) == ("riders", 4)
    recorded(trek_run("move", "E", "E", "E", "E", "--party", "riders", "--json"), 8, "Moved")
    # The walkers, the party in use, have no day open: their move is refused.
    refused(trek_run("move", "E"),
            "no day is open for party main; run `trek day start --party main` first")
    ok(trek_run("party", "use", "riders"))
    shown = status(trek_run)
    assert (shown["party"], shown["position"], shown["day"]) == ("riders", {"x": 4, "y": 1}, 1)
    assert shown["parties"]["main"] == {
        "position": {"x": 0, "y": 1}, "day": 0, "day_open": False,
        "movement": {"base": 1, "budget": 0, "used": 0, "remaining": 0},
        "supplies": {"provisions": 3, "fuel": 0, "ammo": 0, "wealth": 0},
        "members": ["Oren"]}
    assert status(trek_run, "--party", "main")["position"] == {"x": 0, "y": 1}
    assert status(trek_run, "--as-of", "6")["parties"]["riders"]["position"] == {"x": 0,
                                                                                  "y": 1}
    # The log of one party; every event that acted on a party names it.
    riders = ok(trek_run("log", "--json", "--party", "riders")).json()
    assert [(e["seq"], e["type"]) for e in riders] == [(7, "DayStarted"), (8, "Moved")]
    main = ok(trek_run("log", "--json", "--party", "main")).json()
    assert [e["seq"] for e in main] == [2, 3, 4, 5, 6]
    assert [e["seq"] for e in ok(trek_run("log", "--json", "--party", "main", "--last",
                                          "2")).json()] == [5, 6]
    # The riders ride back on day 2, and the two merge on 0,1: the later day count (2), and
    # the walkers (day 0) waited 2.
    ok(trek_run("day", "end"))                                                           # 9
    ok(trek_run("day", "start"))                                                         # 10
    recorded(trek_run("move", "W", "W", "W", "W", "--json"), 11, "Moved")
    ok(trek_run("day", "end"))                                                           # 12
    refused(trek_run("party", "merge", "riders"), "cannot merge into itself")
    merged = recorded(trek_run("party", "merge", "riders", "--into", "main", "--json"), 13,
                      "PartiesMerged")
    assert (merged["party"], merged["day"], merged["waited"]) == ("main", 2, 2)
    # The party in use was merged away: commands act on the one it joined.
    after = status(trek_run)
    assert (after["party"], list(after["parties"]), after["supplies"]["provisions"]) == (
        "main", ["main"], 5)


def test_each_refusal_is_one_sentence_and_records_nothing(
        trek_run: Run, tmp_path: Path) -> None:
    table(trek_run, tmp_path)
    refused(trek_run("party", "split", "riders", "--member", "Kira"),
            "Kira and Dusty go together", "name Dusty too")
    refused(trek_run("party", "split", "riders", "--member", "Kira", "--member", "Dusty",
                     "--supplies", "provisions=9"), "party main has 5 provisions, not the 9")
    ok(trek_run("day", "start"))
    day_open = trek_run("party", "split", "riders", "--member", "Kira", "--member", "Dusty")
    refused(day_open, "party main has day 1 open")
    assert day_open.stderr.startswith("Error: Party main has day 1 open; ")
    ok(trek_run("day", "end"))
    refused(trek_run("day", "start", "--party", "scouts"),
            "there is no party called 'scouts'; the campaign has main")
    refused(trek_run("party", "use", "scouts"), "no party called 'scouts'")
    refused(trek_run("party", "merge", "scouts"), "no party called 'scouts'")
    negative = trek_run("party", "split", "riders", "--member", "Kira", "--member", "Dusty",
                        "--supplies", "provisions=-1")
    usage_error(negative)
    assert "'provisions=-1': the number must be 0 or more" in negative.stderr
    assert events(trek_run) == 7
    ok(trek_run("party", "split", "riders", "--member", "Kira", "--member", "Dusty"))
    ok(trek_run("day", "start", "--party", "riders"))
    ok(trek_run("move", "E", "--party", "riders"))
    ok(trek_run("roster", "leave", "Dusty", "--party", "riders"))
    ok(trek_run("day", "end", "--party", "riders"))
    # Dusty waits on 1,1 for the riders, not for the walkers who come by.
    ok(trek_run("day", "start"))
    ok(trek_run("move", "E"))
    refused(trek_run("roster", "rejoin", "Dusty"),
            "Dusty belongs to party riders, not party main; give --party riders")
    refused(trek_run("party", "merge", "riders"),
            "party main has day 2 open")
    ok(trek_run("day", "end"))
    # Merged, the walkers keep the riders' word: Dusty waits on 1,1, where they all stand.
    ok(trek_run("party", "merge", "riders"))
    ok(trek_run("roster", "rejoin", "Dusty"))
    assert status(trek_run)["conveyances"]["Dusty"]["with_party"] is True


def test_undo_of_a_split_after_the_riders_moved_needs_cascade(
        trek_run: Run, tmp_path: Path) -> None:
    table(trek_run, tmp_path)
    ok(trek_run("party", "split", "riders", "--member", "Kira", "--member", "Dusty"))    # 6
    ok(trek_run("day", "start", "--party", "riders"))                                    # 7
    refused(trek_run("undo", "6"), "event 7 (DayStarted)", "add --cascade")
    undo = recorded(trek_run("undo", "6", "--cascade", "--json"), 8, "EventsCancelled")
    assert undo["cancels"] == [6, 7]
    assert list(status(trek_run)["parties"]) == ["main"]


def two_routes(run: Run, tmp_path: Path) -> None:
    """The riders ride two days (0,1 -> 3,1 -> 5,1), the walkers walk one (0,1 -> 1,1)."""
    table(run, tmp_path)
    ok(run("party", "split", "riders", "--member", "Kira", "--member", "Dusty"))    # 6
    ok(run("day", "start", "--party", "riders"))                                    # 7
    ok(run("move", "E", "E", "E", "--party", "riders"))                             # 8
    ok(run("day", "end", "--party", "riders"))                                      # 9
    ok(run("day", "start", "--party", "riders"))                                    # 10
    ok(run("move", "E", "E", "--party", "riders"))                                  # 11
    ok(run("day", "start"))                                                         # 12
    ok(run("move", "E"))                                                            # 13


def check_two_families(picture: Drawn) -> None:
    """Each party's route in shades of its own colour family, told apart from the other's,
    each party's marker its own shape in its family, and a key naming both (RULES.md §15)."""
    riders_1, riders_2, walkers = (picture.segments[seq] for seq in (8, 11, 13))
    assert [(party, day) for party, day, _ in (riders_1, riders_2, walkers)] == [
        ("riders", 1), ("riders", 2), ("main", 1)]
    # One family: the riders' two days share a hue, each day its own shade.
    assert hue_apart(hue(riders_1[2]), hue(riders_2[2])) < 2
    assert riders_1[2] != riders_2[2]
    # Two families: far apart round the colour wheel.
    assert hue_apart(hue(riders_1[2]), hue(walkers[2])) > 60
    assert set(picture.markers) == {"main", "riders"}
    assert picture.markers["main"][0] != picture.markers["riders"][0]
    for party, route in (("main", walkers), ("riders", riders_1)):
        assert hue_apart(hue(picture.markers[party][1]), hue(route[2])) < 2
    assert picture.key["day:riders:2"] == "party riders, day 2"
    assert picture.key["day:main:1"] == "party main, day 1"
    assert picture.key["party:main"].startswith("party main now (1,1)")
    assert picture.key["party:riders"].startswith("party riders now (5,1)")


def test_the_map_shows_every_party_and_its_route(trek_run: Run, tmp_path: Path) -> None:
    two_routes(trek_run, tmp_path)
    # The party in use (main, at 1,1) is @, the riders (at 5,1) are &.
    shown = ok(trek_run("map", "show")).stdout
    assert "1 .@...&...." in shown
    assert "'@': party main, at 1,1" in shown
    assert "'&': party riders, at 5,1" in shown
    document = ok(trek_run("map", "show", "--json", "--party", "riders")).json()
    assert (document["party"], document["position"]) == ("riders", {"x": 5, "y": 1})
    assert document["parties"] == {"main": {"position": {"x": 1, "y": 1}, "day": 1},
                                   "riders": {"position": {"x": 5, "y": 1}, "day": 2}}
    assert [(s["seq"], s["party"], s["day"]) for s in document["route"]["segments"]] == [
        (8, "riders", 1), (11, "riders", 2), (13, "main", 1)]
    ok(trek_run("map", "show", "--svg", "route.svg"))
    ok(trek_run("map", "show", "--html", "route.html"))
    ok(trek_run("map", "show", "--svg", "riders.svg", "--party", "riders"))
    for name in ("route.svg", "route.html", "riders.svg"):
        check_two_families(drawn((tmp_path / name).read_text()))
    # Told from either party's side, each party keeps its colours.
    assert drawn((tmp_path / "route.svg").read_text()) == drawn(
        (tmp_path / "riders.svg").read_text())


def test_a_partys_name_is_text_in_the_picture(trek_run: Run, tmp_path: Path) -> None:
    table(trek_run, tmp_path)
    name = '<b x>Kira & "co"\''
    ok(trek_run("party", "split", name, "--member", "Kira", "--member", "Dusty"))    # 6
    ok(trek_run("day", "start", "--party", name))                                  # 7
    ok(trek_run("move", "E", "--party", name))                                     # 8
    ok(trek_run("map", "show", "--svg", "route.svg"))
    svg = (tmp_path / "route.svg").read_text()
    # The picture parses as XML (drawn() reads it so), the name its text and its attributes'
    # values, never markup.
    picture = drawn(svg)
    assert picture.segments[8][:2] == (name, 1)
    assert set(picture.markers) == {"main", name}
    assert picture.key[f"party:{name}"].startswith(f"party {name} now (1,1)")
    assert "<b " not in svg


def test_the_gms_page_picks_the_party_and_shows_every_party(
        trek_run: Run, tmp_path: Path) -> None:
    import asyncio

    import httpx

    from cli.web.app import ServeConfig, create_app

    two_routes(trek_run, tmp_path)
    seat = ok(trek_run("seat", "add", "ana", "--character", "Kira", "--character", "Oren",
                       "--json")).json()["key"]
    rider = ok(trek_run("seat", "add", "kit", "--character", "Kira", "--json")).json()["key"]
    app = create_app(ServeConfig(db=str(tmp_path / "trek.db"), campaign="long-road",
                                 gm_key="g" * 20, player_key="p" * 20))
    gm = {"Authorization": "Bearer " + "g" * 20}

    async def visit() -> tuple[str, httpx.Response, httpx.Response, str, str, str, str]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://trek") as client:
            before = (await client.get("/", params={"key": "g" * 20})).text
            # The players and the seat while the walkers are the party in use.
            players = (await client.get("/players", params={"key": "p" * 20})).text
            seated = (await client.get("/seat", params={"key": seat})).text
            riding = (await client.get("/seat", params={"key": rider})).text
            # `party use` sets the store, as `campaigns use` does: not a command of the table.
            words = await client.post("/api/campaigns/long-road/commands", headers=gm,
                                      json={"argv": ["party", "use", "riders"]})
            used = await client.post("/api/campaigns/long-road/party", headers=gm,
                                     json={"party": "riders"})
            after = (await client.get("/", params={"key": "g" * 20})).text
            return before, words, used, after, players, seated, riding

    before, words, used, after, players, seated, riding = asyncio.run(visit())
    assert '<option value="main" selected>main (1,1, day 1)</option>' in before
    assert '<option value="riders">riders (5,1, day 2)</option>' in before
    assert words.status_code == 403
    assert used.status_code == 200
    assert used.json() == {"campaign": "long-road", "party": "riders", "previous": None}
    assert '<option value="riders" selected>' in after
    assert "Party riders · " in after
    assert "at 5,1" in after
    # Every page draws both parties, each in its own colour family with its own marker, and
    # the page's key names each party: the GM's (from either party's side), the players' and
    # the seat's, fog and all.
    for page in (before, after, players, seated):
        check_two_families(drawn(page))
    # The fog lifts within a square of where any party stood or walked, whichever party is in
    # use: 6,0 only the riders came near (at 5,1); 8,0 nobody did; the GM sees everything.
    for page, fogged in ((before, False), (players, True), (seated, True)):
        assert terrain(page, 6, 0) == "open"
        assert terrain(page, 2, 0) == "open"
        assert terrain(page, 8, 0) == ("unexplored" if fogged else "open")
    # Each of the seat's cards tells its own character's party's day: the riders have moved 2
    # of their 4, the walkers 1 of their 1, whichever party is in use.
    import re

    cards = dict(re.findall(r'<div class="seat-card" data-name="(\w+)">.*?<div class="muted">'
                            r"([^<]*)</div>", seated, re.S))
    assert cards == {"Kira": "base 4, budget 4, used 2, remaining 2",
                     "Oren": "base 1, budget 1, used 1, remaining 0"}
    # A seat whose characters all ride with the riders is told the riders' day, though the
    # walkers are the party in use; a seat in both parties, the party in use's.
    assert "Party riders · " in riding
    assert "Day 2 · open" in riding
    assert "<strong>2</strong> of 4 squares left today" in riding
    assert "Party main · " in seated
    assert "<strong>0</strong> of 1 squares left today" in seated
    # The marker of the party in use is the one the GM drags; the other's is another party's.
    assert 'class="party other-party" data-party="riders"' in before
    assert 'class="party" data-party="riders"' in after


def terrain(page: str, x: int, y: int) -> str:
    """The terrain a page's map draws on square x,y."""
    import re

    found = re.search(rf'<rect class="cell ([^"]+)" data-x="{x}" data-y="{y}"', page)
    assert found is not None, (x, y)
    return found.group(1)


def test_a_ruleset_without_overland_travel_has_one_party(trek_run: Run) -> None:
    ok(trek_run("init", "Alley", "--ruleset", "gurps", "--seed", "1"))
    refused(trek_run("party", "split", "scouts", "--member", "Kira"),
            "the gurps ruleset has no overland rules, so no parties to split or merge")
    refused(trek_run("party", "merge", "scouts"), "no parties to split or merge")
    assert status(trek_run)["parties"] == {"main": {
        "position": {"x": 0, "y": 0}, "day": 0, "day_open": False,
        "movement": {"base": 0, "budget": 0, "used": 0, "remaining": 0},
        "supplies": {"provisions": 0, "fuel": 0, "ammo": 0, "wealth": 0}, "members": []}}


def test_status_in_words_names_the_party_it_tells_and_where_the_others_are(
        trek_run: Run, tmp_path: Path) -> None:
    """After the riders split off and ride 4 squares east on day 1 (ground-speed 2: 4 a day),
    `status --party riders` tells the riders at 4,1 on day 1 and names the walkers at 0,1,
    who have no day yet; before the split the line names no party."""
    table(trek_run, tmp_path)
    first = ok(trek_run("status")).stdout.splitlines()[0]
    assert first == "Long Road (long-road, besm) — no day yet, at 0,1, 5 events"
    ok(trek_run("party", "split", "riders", "--member", "Kira", "--member", "Dusty"))
    ok(trek_run("day", "start", "--party", "riders"))
    ok(trek_run("move", "E", "E", "E", "E", "--party", "riders"))
    lines = ok(trek_run("status", "--party", "riders")).stdout.splitlines()
    assert lines[0] == ("Long Road (long-road, besm) — party riders: day 1 (open), at 4,1, "
                        "8 events")
    assert "other parties: main at 0,1, no day yet" in lines
    walkers = ok(trek_run("status")).stdout.splitlines()
    assert walkers[0] == "Long Road (long-road, besm) — party main: no day yet, at 0,1, 8 events"
    assert "other parties: riders at 4,1, day 1 (open)" in walkers


def test_a_split_party_without_an_open_day_is_named_with_the_command_that_opens_it(
        trek_run: Run, tmp_path: Path) -> None:
    """BESM's move and Cypher's move and day end: the refusal names the party told, quoted for
    the shell where its name needs it; before any split the sentence is §3's own."""
    table(trek_run, tmp_path)
    refused(trek_run("move", "E"), "Error: No day is open; run `trek day start` first.")
    ok(trek_run("party", "split", "the riders", "--member", "Kira", "--member", "Dusty"))
    refused(trek_run("move", "E", "--party", "the riders"),
            "no day is open for party the riders; "
            "run `trek day start --party 'the riders'` first.")
    ok(trek_run("init", "Numenera", "--ruleset", "cypher", "--seed", "2"))
    ok(trek_run("campaigns", "use", "numenera"))
    ok(trek_run("roster", "add-character", "Ada", "--might", "12", "--speed", "10"))
    ok(trek_run("roster", "add-character", "Bo", "--might", "12", "--speed", "10"))
    ok(trek_run("party", "split", "scouts", "--member", "Bo"))
    for words in (("move", "E", "--party", "scouts"), ("day", "end", "--party", "scouts")):
        refused(trek_run(*words),
                "no day is open for party scouts; run `trek day start --party scouts` first.")
