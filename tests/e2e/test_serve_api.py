"""`trek serve`'s JSON API and live stream, on a real server process, on SQLite and PostgreSQL.

The sample campaign (tests/served.py) has 21 events and day 3 ended, the party at 7,1 with a
movement base of 2 (RULES §3)."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from cliruns import ok
from conftest import TrekRun
from served import GM_KEY, PLAYER_KEY, SLUG, Served, Stream, sample_campaign, serve

pytestmark = pytest.mark.slow


@pytest.fixture
def served(tmp_path: Path, db: str) -> Iterator[Served]:
    sample_campaign(db)
    with serve(tmp_path, db) as server:
        yield server


def events_count(server: Served) -> int:
    return int(server.get("status").json()["events"])


def test_prints_two_lines_and_stops_with_exit_0_on_sigterm(tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    sample_campaign(db)
    with serve(tmp_path, db) as server:
        # the two lines: GM's secret then the players', nothing else
        gm_line, players_line = server.stdout.splitlines()
        assert gm_line == f"GM: {server.base}/?key={GM_KEY}"
        assert players_line == f"Players: {server.base}/players?key={PLAYER_KEY}"
        assert server.get("status").status_code == 200
        assert server.stop() == 0
        assert server.process.stdout is not None
        assert server.process.stdout.read() == ""


def test_sigint_stops_with_exit_0_and_random_secrets_differ(tmp_path: Path) -> None:
    import subprocess

    from conftest import trek_command, trek_env

    db = str(tmp_path / "trek.db")
    sample_campaign(db)
    process = subprocess.Popen(trek_command("serve", "--port", "0", "--no-open"),
                               cwd=tmp_path, env=trek_env(db), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    gm = process.stdout.readline().strip().rsplit("?key=", 1)[1]
    players = process.stdout.readline().strip().rsplit("?key=", 1)[1]
    assert len(gm) >= 16
    assert len(players) >= 16
    assert gm != players
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert out == ""
    assert "Traceback" not in err


def test_reads_are_the_documents_of_json(served: Served,
                                         trek_run: Callable[..., TrekRun]) -> None:
    status = served.get("status")
    assert status.status_code == 200
    assert status.json() == ok(trek_run("status", "--json", db=served.db)).json()
    log = served.get("log")
    assert log.json() == ok(trek_run("log", "--json", db=served.db)).json()
    assert [e["seq"] for e in log.json()] == list(range(1, 22))
    some = served.get("log", params={"from": "5", "last": "2"})
    assert [e["seq"] for e in some.json()] == [20, 21]
    assert served.get("encounter").json() is None


def test_a_command_records_and_answers_with_its_json(served: Served) -> None:
    response = served.command(["day", "start"])
    assert response.status_code == 200
    [event] = response.json()
    assert (event["seq"], event["type"]) == (22, "DayStarted")
    moved = served.command(["move", "E", "E"])
    assert moved.status_code == 200, moved.text
    [event] = moved.json()
    assert (event["seq"], event["type"], event["cost"]) == (23, "Moved", 2)
    assert served.get("status").json()["position"] == {"x": 9, "y": 1}


def test_a_refusal_is_422_with_the_cli_sentence_and_records_nothing(
        served: Served, trek_run: Callable[..., TrekRun]) -> None:
    # day 3 is ended: no movement before `day start`
    cli = trek_run("move", "E", "--json", db=served.db)
    assert cli.returncode == 1
    response = served.command(["move", "E"])
    assert response.status_code == 422
    assert response.json() == {"error": cli.stderr.strip().removeprefix("Error: ")}
    assert events_count(served) == 21


@pytest.mark.parametrize(("argv", "fragment"), [
    (["mvoe", "E"], "No such command"),
    (["move", "--bogus"], "`trek move` has no option --bogus; its own options are --to"),
    (["undo", "seven"], "seven"),
    (["--db", "other.db", "status"], "--db is fixed by the server"),
    (["move", "--campaign=x", "E"], "--campaign is fixed by the server"),
    (["status", "--help"], "--help is not available"),
    (["harm", "Kira", "--reason", "a\x1b[31mred"], "control characters"),
    ([], "argv"),
    (["x" * 500], "at most"),
])
def test_a_usage_mistake_is_400_and_records_nothing(served: Served, argv: list[str],
                                                    fragment: str) -> None:
    response = served.command(argv)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert fragment in error
    assert error.endswith((".", "?"))
    assert events_count(served) == 21


@pytest.mark.parametrize(("argv", "fragment"), [
    (["map", "show", "--svg", "/tmp/x.svg"], "--svg is not available"),
    (["init", "Other"], "init"),
    (["serve"], "serve"),
])
def test_a_command_that_is_not_the_tables_is_403_and_records_nothing(
        served: Served, argv: list[str], fragment: str) -> None:
    response = served.command(argv)
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert fragment in error
    assert "trek command line" in error
    assert error.endswith(".")
    assert events_count(served) == 21


def test_bodies_are_bounded_and_must_be_the_documented_shape(served: Served) -> None:
    headers = {"Authorization": f"Bearer {GM_KEY}", "Content-Type": "application/json"}
    url = served.api("commands")
    huge = httpx.post(url, content=json.dumps({"argv": ["status"] * 5000}), headers=headers)
    assert huge.status_code == 413
    for body in ("not json", '{"argv": "move E"}', '{"argv": ["status"], "extra": 1}'):
        response = httpx.post(url, content=body, headers=headers)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["error"].endswith(".")


def test_the_players_secret_reads_only_and_no_secret_reads_nothing(served: Served) -> None:
    assert served.get("status", key=None).status_code == 401
    assert served.get("status", key="wrong-secret-0123456789").status_code == 401
    assert served.get("status", key=PLAYER_KEY).status_code == 200
    assert httpx.get(served.api("status"), params={"key": PLAYER_KEY}).status_code == 200
    refused = served.command(["day", "start"], key=PLAYER_KEY)
    assert refused.status_code == 403
    assert refused.json()["error"].endswith(".")
    # a write takes the secret in a header only: a link or a cross-site form cannot record
    by_query = httpx.post(served.api("commands"), params={"key": GM_KEY},
                          json={"argv": ["day", "start"]})
    assert by_query.status_code == 401
    # the GM's page needs the GM's secret
    assert httpx.get(f"{served.base}/", params={"key": PLAYER_KEY}).status_code == 403
    assert httpx.get(f"{served.base}/players", params={"key": PLAYER_KEY}).status_code == 200
    assert events_count(served) == 21


def test_preview_answers_the_event_and_records_nothing(served: Served) -> None:
    ok_day = served.command(["day", "start"])
    assert ok_day.status_code == 200
    response = served.command(["move", "--to", "9,3"], preview=True)
    assert response.status_code == 200, response.text
    [event] = response.json()
    # 7,1 -> 8,2 -> 9,3 on open ground: two squares of the day's two
    assert (event["type"], event["cost"]) == ("Moved", 2)
    assert [list(square) for square in event["path"]] == [[7, 1], [8, 2], [9, 3]]
    assert events_count(served) == 22
    assert served.get("status").json()["position"] == {"x": 7, "y": 1}
    too_far = served.command(["move", "--to", "0,3"], preview=True)
    assert too_far.status_code == 422
    assert events_count(served) == 22


def test_an_event_recorded_by_a_trek_process_arrives_on_the_stream(
        served: Served, trek_cli: Callable[..., TrekRun]) -> None:
    gm = Stream(served.api(f"events?key={GM_KEY}")).start()
    players = Stream(served.api(f"events?key={PLAYER_KEY}")).start()
    ok(trek_cli("day", "start", db=served.db))
    # each message within 2 s of the command that recorded it
    message = gm.next(timeout=2)
    assert (message["seq"], message["type"]) == (22, "DayStarted")
    assert players.next(timeout=2)["seq"] == 22
    ok(trek_cli("undo", "--reason", "wrong day", db=served.db))
    assert gm.next(timeout=2)["reason"] == "wrong day"
    # the players never see the GM's notes
    assert "reason" not in players.next(timeout=2)
    # and this server's own commands arrive too
    assert served.command(["day", "start"]).status_code == 200
    assert gm.next(timeout=2)["seq"] == 24


def test_twenty_players_connected_at_once_keep_receiving(served: Served) -> None:
    streams = [Stream(served.api(f"events?key={PLAYER_KEY}")).start() for _ in range(20)]
    for seq, argv in [(22, ["day", "start"]), (23, ["move", "E"])]:
        assert served.command(argv).status_code == 200
        for stream in streams:
            assert stream.next(timeout=3)["seq"] == seq


def test_hostile_names_are_text_and_pages_allow_no_inline_script(served: Served) -> None:
    hostile = "<script>alert(1)</script>"
    added = served.command(["roster", "add-character", hostile, "--body", "4", "--mind", "4",
                            "--soul", "4"])
    assert added.status_code == 200, added.text
    for path, key in (("/", GM_KEY), ("/players", PLAYER_KEY)):
        page = httpx.get(f"{served.base}{path}", params={"key": key})
        assert page.status_code == 200
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
        assert hostile not in page.text
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
    assert hostile in served.get("status").json()["characters"]


def test_an_unknown_campaign_is_404(served: Served) -> None:
    response = httpx.get(f"{served.base}/api/campaigns/nowhere/status",
                         headers={"Authorization": f"Bearer {GM_KEY}"})
    assert response.status_code == 404
    assert response.json() == {"error": "There is no campaign 'nowhere' in this store."}


def test_the_api_is_described_at_api_docs(served: Served) -> None:
    page = httpx.get(f"{served.base}/api/docs", params={"key": PLAYER_KEY})
    assert page.status_code == 200
    assert "/api/campaigns/{slug}/commands" in page.text
    # the page's link to the description works with the secret the page was opened with
    assert f'href="/api/openapi.json?key={PLAYER_KEY}"' in page.text
    described = httpx.get(f"{served.base}/api/openapi.json",
                          headers={"Authorization": f"Bearer {PLAYER_KEY}"}).json()
    assert set(described["paths"]) == {f"/api/campaigns/{{slug}}/{tail}" for tail in
                                       ("status", "log", "encounter", "commands", "ruler",
                                        "events")}
    assert SLUG not in page.text


def test_the_api_description_needs_a_secret(served: Served) -> None:
    for tail in ("/api/docs", "/api/openapi.json"):
        assert httpx.get(f"{served.base}{tail}").status_code == 401
        assert httpx.get(f"{served.base}{tail}", params={"key": "wrong"}).status_code == 401
        answer = httpx.get(f"{served.base}{tail}", headers={"Authorization": "Bearer wrong"})
        assert answer.status_code == 401
        assert answer.json() == {"error": "That secret is not this server's."}
        for key in (PLAYER_KEY, GM_KEY):
            assert httpx.get(f"{served.base}{tail}", params={"key": key}).status_code == 200
            assert httpx.get(f"{served.base}{tail}",
                             headers={"Authorization": f"Bearer {key}"}).status_code == 200


def test_two_servers_on_one_store_each_record_and_see_the_other(served: Served,
                                                                  tmp_path: Path) -> None:
    with serve(tmp_path, served.db) as other:
        watching = Stream(other.api(f"events?key={GM_KEY}")).start()
        assert served.command(["day", "start"]).status_code == 200
        assert watching.next(timeout=2)["seq"] == 22
        # the other server's kept store sees the event and records after it
        moved = other.command(["move", "E"])
        assert moved.status_code == 200, moved.text
        assert moved.json()[0]["seq"] == 23
        assert served.command(["move", "E"]).json()[0]["seq"] == 24
        assert served.get("status").json()["position"] == {"x": 9, "y": 1}


def test_serve_refuses_a_missing_store_and_a_bad_secret(
        tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    from cliruns import refused, usage_error

    missing = trek_run("serve", "--no-open", "--port", "0", db=str(tmp_path / "none.db"))
    refused(missing, "no Trek store")
    assert not (tmp_path / "none.db").exists()
    usage_error(trek_run("serve", "--no-open", "--gm-key", "short"))
    db = str(tmp_path / "trek.db")
    sample_campaign(db)
    same = trek_run("serve", "--no-open", "--port", "0", db=db,
                    env={"TREK_GM_KEY": GM_KEY, "TREK_PLAYER_KEY": GM_KEY})
    usage_error(same)
    assert "must differ" in same.stderr


def test_the_players_map_is_fogged_unless_served_with_no_fog(served: Served,
                                                              tmp_path: Path) -> None:
    def players_page(server: Served) -> str:
        page = httpx.get(f"{server.base}/players", params={"key": PLAYER_KEY})
        assert page.status_code == 200
        return page.text

    # the party walked row 1 (and 0,5 via 5,0): row 3 was never within one square of it
    fogged = players_page(served)
    assert 'class="cell unexplored" data-x="0" data-y="3"' in fogged
    assert 'class="cell open" data-x="8" data-y="2"' in fogged
    # the map's named paths (its shortcuts) are the GM's to show
    assert '<g class="shortcuts"' not in fogged
    gm_page = httpx.get(f"{served.base}/", params={"key": GM_KEY}).text
    assert "unexplored" not in gm_page
    assert '<g class="shortcuts"' in gm_page
    with serve(tmp_path, served.db, "--no-fog") as clear:
        assert "unexplored" not in players_page(clear)


def test_an_open_encounter_is_drawn_on_both_pages(served: Served) -> None:
    hostile = "<i>Ambush</i>"
    assert served.command(["encounter", "start", hostile]).status_code == 200
    assert served.command(["encounter", "add", "Wolf", "--side", "enemy", "--at", "3,2",
                           "--body", "3", "--mind", "2", "--soul", "2"]).status_code == 200
    assert served.get("encounter").json()["name"] == hostile
    for path, key in (("/", GM_KEY), ("/players", PLAYER_KEY)):
        page = httpx.get(f"{served.base}{path}", params={"key": key}).text
        assert 'id="fight"' in page
        assert "Encounter: &lt;i&gt;Ambush&lt;/i&gt;" in page
        assert "<i>Ambush" not in page
        assert "Wolf" in page


def test_a_stream_picks_up_from_a_seq_or_its_last_event_id(served: Served) -> None:
    since = Stream(served.api(f"events?key={PLAYER_KEY}&from=20")).start()
    assert [since.next(timeout=2)["seq"] for _ in range(2)] == [20, 21]
    resumed = []
    with httpx.stream("GET", served.api("events"), timeout=10,
                      headers={"Authorization": f"Bearer {GM_KEY}",
                               "Last-Event-ID": "19"}) as response:
        for line in response.iter_lines():
            if line.startswith("id: "):
                resumed.append(int(line[4:]))
            if len(resumed) == 2:
                break
    assert resumed == [20, 21]


def test_an_unknown_address_or_method_answers_a_sentence(served: Served) -> None:
    nowhere = httpx.get(f"{served.base}/api/nowhere")
    assert nowhere.status_code == 404
    assert nowhere.json() == {"error": "There is nothing at this address."}
    wrong = httpx.delete(served.api("status"), headers={"Authorization": f"Bearer {GM_KEY}"})
    assert wrong.status_code == 405
    assert wrong.json() == {"error": "This address does not take that method."}


def test_a_store_of_several_campaigns_is_served_whole(tmp_path: Path,
                                                      trek_run: Callable[..., TrekRun]) -> None:
    db = str(tmp_path / "trek.db")
    sample_campaign(db)
    ok(trek_run("branch", "what-if", "--at", "12", db=db))
    with serve(tmp_path, db) as server:
        # the pages show the first campaign, ?campaign= another; the API has each
        assert "Ashes Road" in httpx.get(f"{server.base}/", params={"key": GM_KEY}).text
        other = httpx.get(f"{server.base}/players",
                          params={"key": PLAYER_KEY, "campaign": "what-if"})
        assert other.status_code == 200
        assert 'data-slug="what-if"' in other.text
        branch = httpx.get(f"{server.base}/api/campaigns/what-if/status",
                           headers={"Authorization": f"Bearer {GM_KEY}"})
        assert branch.json()["events"] == 12
        assert server.get("status").json()["events"] == 21
        nowhere = httpx.get(f"{server.base}/", params={"key": GM_KEY, "campaign": "nowhere"})
        assert nowhere.status_code == 404


def test_the_ruler_measures_a_move_its_argv_records_and_it_records_nothing(
        served: Served) -> None:
    """BESM §7: Wolf's Speed is its Body, 3; 3,2 to 5,2 is two open squares. Its argv,
    sent as a command, records that very cost."""
    for argv in (["encounter", "start", "Ridge"],
                 ["encounter", "add", "Wolf", "--side", "enemy", "--at", "3,2",
                  "--body", "3", "--mind", "2", "--soul", "2"],
                 ["encounter", "add", "Bear", "--side", "enemy", "--at", "4,2",
                  "--body", "5", "--mind", "2", "--soul", "2"],
                 ["encounter", "round"]):
        assert served.command(argv).status_code == 200, argv
    before = len(served.get("log").json())

    def ruler(body: object, key: str = GM_KEY) -> httpx.Response:
        return httpx.post(served.api("ruler"), json=body, timeout=30,
                          headers={"Authorization": f"Bearer {key}"})

    measured = ruler({"name": "Wolf", "to": [5, 3]})
    assert measured.status_code == 200, measured.text
    answer = measured.json()
    assert answer["argv"] == ["encounter", "move", "--to", "5,3", "Wolf"]
    assert (answer["cost"], answer["band"], answer["tone"]) == (2, "within Speed", 0)
    assert answer["words"] == "within Speed · 2 of 3 squares"
    assert answer["path"][-1] == {"x": 5, "y": 3}
    assert answer["bands"] == ["within Speed", "shift"]
    # The GM may name the kind: a shift is one square costing 1 (§7).
    shifted = ruler({"name": "Wolf", "to": [3, 3], "band": "shift"}).json()
    assert shifted["argv"] == ["encounter", "move", "--shift", "Wolf", "S"]
    assert (shifted["cost"], shifted["tone"], shifted["words"]) == (
        1, 1, "shift · 1 of 3 squares")
    assert ruler({"name": "Wolf", "to": [5, 3], "band": "shift"}).status_code == 422
    # Out of reach, or onto another's cell: the command's own sentence, 422, nothing recorded.
    far = ruler({"name": "Wolf", "to": [9, 9]})
    assert far.status_code == 422
    assert far.json()["error"] == served.command(
        ["encounter", "move", "Wolf", "--to", "9,9"], preview=True).json()["error"]
    taken = ruler({"name": "Wolf", "to": [4, 2]})
    assert taken.status_code == 422
    assert "Bear" in taken.json()["error"]
    assert ruler({"name": "Nobody", "to": [1, 1]}).status_code == 422
    assert ruler({"name": "Wolf", "to": [1, 1]}, key=PLAYER_KEY).status_code == 403
    for bad in ({"name": "Wolf"}, {"name": "Wolf", "to": [1]}, {"name": "", "to": [1, 1]},
                {"name": "Wolf", "to": [1, 1], "extra": 1}, {"name": "W\x1bolf", "to": [1, 1]},
                {"name": "Wolf", "to": [10**9, 0]}):
        refused = ruler(bad)
        assert refused.status_code == 400, bad
        assert refused.json()["error"].endswith(".")
    assert len(served.get("log").json()) == before
    recorded = served.command(answer["argv"])
    assert recorded.status_code == 200
    assert recorded.json()[0]["cost"] == 2
