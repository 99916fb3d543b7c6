"""`trek serve`'s application in process: what a crash answers, the players' fog, and that no
other command loads the web parts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from cliruns import play_all, run_traced

from cli.web.app import ServeConfig, create_app
from cli.web.pages import fogged, for_players, seen_squares

WEB_PARTS = ("fastapi", "uvicorn", "jinja2", "starlette", "cli.web")


def test_a_crash_answers_a_sentence_and_no_traceback(tmp_path: Path) -> None:
    app = create_app(ServeConfig(db=str(tmp_path / "none.db"), campaign="x",
                                 gm_key="g" * 20, player_key="p" * 20))

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("secret internals at /etc/passwd")

    async def ask() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://trek") as client:
            return await client.get("/boom")

    response = asyncio.run(ask())
    assert response.status_code == 500
    assert response.json() == {"error": "Trek could not answer this request (RuntimeError)."}
    assert "Traceback" not in response.text
    assert "passwd" not in response.text


@pytest.mark.parametrize("args", [("status", "--json"), ("--help",), ("log", "--json")])
def test_other_commands_do_not_load_the_web_parts(args: tuple[str, ...],
                                                   tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, [("init", "Ashes Road", "--seed", "3")])
    _, modules = run_traced(tmp_path, db, *args)
    loaded = {m for m in modules if m.split(".")[0] in WEB_PARTS or m.startswith("cli.web")}
    assert not loaded


def _route(path: list[list[int]], cancelled: list[list[int]]) -> dict[str, object]:
    return {"start": {"x": 0, "y": 0}, "position": {"x": path[-1][0], "y": path[-1][1]},
            "map": {"name": "M", "width": 6, "height": 3, "square_miles": 6,
                    "rows": ["......", "..^...", "......"],
                    "legend": {".": {"terrain": "open", "name": None, "penalty": 0,
                                     "road": False},
                               "^": {"terrain": "feature", "name": "<b>peak</b>",
                                     "penalty": 0, "road": False}},
                    "shortcuts": [{"name": "Secret Pass", "path": [[4, 0], [5, 0]],
                                   "bonus": 1, "penalty": 0}]},
            "segments": [{"path": path, "cancelled_by": None},
                         {"path": cancelled, "cancelled_by": 9}],
            "marks": [{"at": {"x": 5, "y": 2}, "cancelled_by": 9, "kind": "forage"}]}


def test_fog_hides_what_the_party_was_never_within_one_square_of() -> None:
    # walked 0,0 -> 1,0 -> 2,0; an undone move went on to 5,2
    route = _route([[0, 0], [1, 0], [2, 0]], [[2, 0], [3, 1], [4, 2], [5, 2]])
    seen = seen_squares(route)
    assert seen >= {(x, y) for x in range(4) for y in range(2)}
    assert (4, 0) not in seen
    assert (3, 2) not in seen
    assert (5, 2) not in seen
    shown = fogged(route)
    rows = shown["map"]["rows"]
    fog = rows[2][0]
    assert fog not in ".^"
    assert rows[0] == "...." + fog * 2
    assert rows[1] == "..^." + fog * 2
    assert rows[2] == fog * 6
    assert shown["map"]["legend"][fog]["terrain"] == "unexplored"
    # the GM's named paths and the undone move and mark are not the players' to see
    assert "shortcuts" not in shown["map"]
    assert [s["cancelled_by"] for s in shown["segments"]] == [None]
    assert shown["marks"] == []


def test_players_never_see_the_gms_notes() -> None:
    entry = {"seq": 4, "type": "EventsCancelled", "cancels": [3], "reason": "misread the map"}
    assert for_players(entry) == {"seq": 4, "type": "EventsCancelled", "cancels": [3]}
    redo = {"seq": 5, "type": "EventsRestored", "restores": [3], "reason": "it was right"}
    assert for_players(redo) == {"seq": 5, "type": "EventsRestored", "restores": [3]}
    # what happened at the table is the players' to read
    harm = {"seq": 6, "type": "Harmed", "character": "Kira", "reason": "a rockslide"}
    assert for_players(harm) == harm


def test_every_partys_square_lifts_the_fog() -> None:
    # The party in use walked 0,0 -> 1,0; another party stands at 5,2, never walked to here.
    route = {**_route([[0, 0], [1, 0]], [[1, 0], [2, 0]]),
             "parties": {"main": {"position": {"x": 1, "y": 0}, "day": 1},
                         "riders": {"position": {"x": 5, "y": 2}, "day": 3}}}
    seen = seen_squares(route)
    assert {(4, 1), (5, 1), (4, 2), (5, 2)} <= seen
    assert (3, 2) not in seen


def test_both_pages_answer_after_a_day_whose_moves_are_all_undone(tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    ashen = str(Path(__file__).parents[2] / "docs" / "examples" / "ashen-reach.toml")
    play_all(tmp_path, db, [
        ("init", "F", "--map", ashen, "--at", "1,1"),
        ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"),
        ("day", "start"), ("move", "N"), ("undo", "--reason", "oops")])
    app = create_app(ServeConfig(db=db, campaign="f", gm_key="g" * 20, player_key="p" * 20))

    async def ask(path: str, key: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://trek") as client:
            return await client.get(path, params={"key": key})

    for path, key in (("/players", "p" * 20), ("/parts/players", "p" * 20),
                      ("/", "g" * 20), ("/parts/gm", "g" * 20)):
        response = asyncio.run(ask(path, key))
        assert response.status_code == 200, (path, response.text)
        # the undone move is the GM's to see, drawn and labelled; the players see no day yet
        labels = response.text.count('class="day-label"')
        assert labels == (1 if key == "g" * 20 else 0), path


def test_the_gms_page_draws_the_maps_rivers_and_the_players_fog_hides_them(
        tmp_path: Path) -> None:
    # A river down column 3 of a 4×2 map, far from the party at 0,0: the GM's page draws it
    # (its group, its line, its name and its entry in the key); the players' map, fogged
    # beyond a square round the party, leaves it out with the other named paths.
    db = str(tmp_path / "trek.db")
    vale = tmp_path / "vale.toml"
    vale.write_text('[map]\nname = "Vale"\nrows = ["....", "...."]\n[legend]\n'
                    '"." = { terrain = "open" }\n'
                    '[[river]]\nname = "Grey <Water>"\npath = [[3, 0], [3, 1]]\n')
    play_all(tmp_path, db, [("init", "V", "--map", str(vale), "--at", "0,0")])
    app = create_app(ServeConfig(db=db, campaign="v", gm_key="g" * 20, player_key="p" * 20))

    async def ask(path: str, key: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://trek") as client:
            return await client.get(path, params={"key": key})

    gm = asyncio.run(ask("/", "g" * 20)).text
    assert '<polyline class="river" data-name="Grey &lt;Water&gt;"' in gm
    assert 'data-key="river"' in gm
    assert "Grey <Water>" not in gm
    players = asyncio.run(ask("/players", "p" * 20)).text
    assert 'class="river"' not in players
    assert "Grey &lt;Water&gt;" not in players


def test_a_page_goes_gzipped_to_a_browser_that_takes_gzip_and_plain_to_one_that_does_not(
        tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    ashen = str(Path(__file__).parents[2] / "docs" / "examples" / "ashen-reach.toml")
    play_all(tmp_path, db, [("init", "F", "--map", ashen, "--at", "1,1")])
    app = create_app(ServeConfig(db=db, campaign="f", gm_key="g" * 20, player_key="p" * 20))

    async def ask(path: str, accepts: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://trek") as client:
            return await client.get(path, params={"key": "g" * 20},
                                    headers={"Accept-Encoding": accepts})

    for path in ("/", "/parts/gm"):
        plain = asyncio.run(ask(path, "identity"))
        packed = asyncio.run(ask(path, "br, gzip;q=0.8"))
        assert plain.status_code == packed.status_code == 200
        assert "content-encoding" not in plain.headers
        assert packed.headers["content-encoding"] == "gzip"
        assert plain.headers["vary"] == packed.headers["vary"] == "Accept-Encoding"
        # The same page, in far fewer bytes on the wire.
        assert packed.text == plain.text
        assert 'class="cell' in plain.text
        assert packed.num_bytes_downloaded * 3 < plain.num_bytes_downloaded
        refused = asyncio.run(ask(path, "gzip;q=0, br"))
        assert "content-encoding" not in refused.headers
        assert refused.text == plain.text


@pytest.mark.parametrize(("header", "takes"), [
    ("gzip", True), ("gzip, deflate, br", True), ("br;q=1.0, GZIP;q=0.5", True),
    ("*", True), ("*, gzip;q=0", False), ("gzip;q=0", False), ("gzip; q=0.0", False),
    ("br", False), ("", False), ("identity", False), ("gzip;q=x", False)])
def test_accept_encoding_is_read_with_its_weights(header: str, takes: bool) -> None:
    from cli.web.app import takes_gzip

    assert takes_gzip(header) is takes
