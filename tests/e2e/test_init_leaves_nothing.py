"""A refused `trek init` leaves nothing behind.

Whatever can be checked without a store (the name, the map, the start square, the ruleset, the
GM's name) is checked before the store file is made, so a refusal for any of them leaves the
folder as it was. A store that already existed is left byte for byte as it was; a store this
init made and then could not finish is removed with SQLite's files beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cliruns import ok, recorded, refused, usage_error
from conftest import TrekRun
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

Run = Callable[..., TrekRun]
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
OVERLAND = EXAMPLES / "ashen-reach.toml"
BATTLE = EXAMPLES / "kessel-pass-battle.toml"

# Each refused init, with a few words of its sentence (None: a usage error, exit 2).
REFUSED: list[tuple[str, list[str], str | None]] = [
    ("empty name", ["init", ""], "makes no campaign name"),
    ("81-character name", ["init", "a" * 81], "81 characters long"),
    ("name of symbols only", ["init", "!!!"], "makes no campaign name"),
    ("map that is not TOML", ["init", "Ashes", "--map", "bad.toml"], "not valid TOML"),
    ("start off the map", ["init", "Ashes", "--map", str(OVERLAND), "--at", "99,99"],
     "off the map"),
    ("start on mountains", ["init", "Ashes", "--map", str(OVERLAND), "--at", "2,1"],
     "not passable"),
    ("battle map as overland map", ["init", "Ashes", "--map", str(BATTLE)],
     "has terrain 'wall'"),
    ("map of another ruleset's words",
     ["init", "Ashes", "--ruleset", "cypher", "--map", str(OVERLAND)], "cannot use"),
    ("missing map", ["init", "Ashes", "--map", "/nonexistent.toml"], "cannot read the map"),
    ("GM name with a control character", ["--gm", "evil\x07gm", "init", "Ashes"], "GM name"),
    ("unknown ruleset", ["init", "Ashes", "--ruleset", "nope"], None),
]


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "bad.toml").write_text("[map\nname = 'broken'\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("args", "words"), [(a, w) for _, a, w in REFUSED],
                         ids=[case for case, _, _ in REFUSED])
def test_a_refused_init_leaves_the_folder_as_it_was(
        trek_run: Run, folder: Path, args: list[str], words: str | None) -> None:
    before = _listing(folder)
    result = trek_run(*args)
    if words is None:
        usage_error(result)
    else:
        refused(result, words)
    assert _listing(folder) == before == ["bad.toml"]


def _bytes_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize(("args", "words"), [(a, w) for _, a, w in REFUSED],
                         ids=[case for case, _, _ in REFUSED])
def test_a_refused_init_leaves_an_existing_store_byte_for_byte(
        trek_run: Run, folder: Path, args: list[str], words: str | None) -> None:
    recorded(trek_run("init", "Old Road", "--seed", "3", "--json"), 1, "CampaignStarted")
    before = _bytes_of(folder)
    result = trek_run(*args)
    if words is None:
        usage_error(result)
    else:
        refused(result, words)
    assert _bytes_of(folder) == before
    assert [c["slug"] for c in ok(trek_run("campaigns", "--json")).json()] == ["old-road"]


def test_a_second_campaign_of_the_same_name_leaves_the_store_byte_for_byte(
        trek_run: Run, folder: Path) -> None:
    ok(trek_run("init", "Old Road"))
    before = _bytes_of(folder)
    refused(trek_run("init", "OLD road"), "already has a campaign called 'old-road'")
    assert _bytes_of(folder) == before


def test_an_init_that_fails_after_making_the_store_removes_it(
        trek_run: Run, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The store is made, then the append fails: the files this init made go again.
    from tracker.app import Trek
    from tracker.stores import StoreError

    def failing(self: Trek, *args: object, **kwargs: object) -> None:
        raise StoreError(f"the store {self.location.display} could not be written: disk full")

    monkeypatch.setattr(Trek, "_save", failing)
    refused(trek_run("init", "Ashes"), "disk full")
    assert _listing(folder) == ["bad.toml"]


def test_an_init_that_fails_on_an_existing_store_leaves_it(
        trek_run: Run, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.app import Trek
    from tracker.stores import StoreError

    ok(trek_run("init", "Old Road"))
    before = _bytes_of(folder)

    def failing(self: Trek, *args: object, **kwargs: object) -> None:
        raise StoreError(f"the store {self.location.display} could not be written: disk full")

    monkeypatch.setattr(Trek, "_save", failing)
    refused(trek_run("init", "Ashes"), "disk full")
    assert _bytes_of(folder) == before


def test_an_empty_file_left_by_an_interrupted_init_is_left_when_init_is_refused(
        trek_run: Run, folder: Path) -> None:
    (folder / "trek.db").write_bytes(b"")
    refused(trek_run("init", ""), "makes no campaign name")
    assert _bytes_of(folder)["trek.db"] == b""
    # And a good init makes the store there.
    recorded(trek_run("init", "Ashes", "--json"), 1, "CampaignStarted")


NAMES = st.one_of(st.sampled_from(["", " ", "!!!", "a" * 81, "a" * 80, "Ashes Road", "[red]x",
                                   "tab\there", "\x07bell", "ünïcødé"]),
                  st.text(max_size=20).filter(lambda s: "\x00" not in s))
SQUARES = st.one_of(st.sampled_from(["99,99", "2,1", "0,0", "-1,0", "x", "1,1"]),
                    st.builds(lambda x, y: f"{x},{y}", st.integers(-20, 20),
                              st.integers(-20, 20)))


@st.composite
def init_lines(draw: st.DrawFn) -> list[str]:
    line = ["init", draw(NAMES)]
    if draw(st.booleans()):
        line += ["--ruleset", draw(st.sampled_from(["besm", "cypher", "gurps", "nope"]))]
    if draw(st.booleans()):
        line += ["--map", draw(st.sampled_from(
            ["BAD", str(OVERLAND), str(BATTLE), "/nonexistent.toml", "."]))]
    if draw(st.booleans()):
        line += ["--at", draw(SQUARES)]
    if draw(st.booleans()):
        line += ["--seed", draw(st.sampled_from(["1", "-1", "x", str(2**63)]))]
    if draw(st.integers(0, 4)) == 0:
        line = ["--gm", draw(st.sampled_from(["", "a" * 81, "gm\x1b[31m", "Ann"])), *line]
    return line


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=init_lines())
def test_any_init_that_is_refused_leaves_the_folder_as_it_was(
        trek_run: Run, tmp_path_factory: pytest.TempPathFactory, line: list[str]) -> None:
    folder = tmp_path_factory.mktemp("init")
    (folder / "bad.toml").write_text("[map\n", encoding="utf-8")
    line = [str(folder / "bad.toml") if word == "BAD" else word for word in line]
    result = trek_run(*line, db=str(folder / "trek.db"))
    assert result.returncode in (0, 1, 2), result
    assert "Traceback" not in result.stderr, result
    if result.returncode:
        assert _listing(folder) == ["bad.toml"], result
    else:
        assert "trek.db" in _listing(folder), result


@pytest.mark.postgres
def test_a_refused_init_creates_no_table_in_a_postgresql_database(
        trek_run: Run, folder: Path, pg_url: str) -> None:
    import psycopg

    for args, words in [(a, w) for _, a, w in REFUSED if w is not None]:
        refused(trek_run(*args, db=pg_url), words)
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT count(*) FROM information_schema.tables "
                           "WHERE table_schema = current_schema()").fetchone()
    assert row == (0,)
