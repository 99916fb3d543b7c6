"""Fuzzing the command line: command lines generated from the real command tree.

Random options and arguments, huge and negative numbers, unicode, control characters, markup,
empty and very long strings and malformed --db values. Whatever the line: the exit code is 0,
1 or 2, nothing is a traceback, no terminal escape reaches the output, and when the exit code
is 1 or 2 the store's log is exactly as it was.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cli.bootstrap import bootstrap
from cli.main import trek
from cli.options import Settings

NAMES = ["Kira", "Oren", "Dusty", "Cart", "kira", "Zed", ""]
HOSTILE_TEXT = st.one_of(
    st.sampled_from(["", " ", "a[/]b", "[red]Kira", "[/b] Road", "\x1b[31mred", "tab\there",
                     "new\nline", "\r", "\x7f", "\u202e", "x" * 5000, "=", "Kira=", "=5",
                     "-1", "--json", "'; DROP TABLE stored_events; --", "%s", "{}", "ünïcødé",
                     "😀" * 3]),
    st.text(min_size=0, max_size=30).filter(lambda s: "\x00" not in s),
)
NUMBERS = st.one_of(
    st.sampled_from(["0", "1", "-1", "12", "13", "10**30", "9223372036854775808",
                     "-9223372036854775809", "1000000001", "1e3", "0x10", "", " 3", "²"]),
    st.integers(-10**30, 10**30).map(str),
)
DB_VALUES = st.sampled_from([
    "postgresql://u:pw@127.0.0.1:notaport/x", "postgresql://u:pw@127.0.0.1:99999/x",
    "postgresql://u:pw@127.0.0.1:-1/x", "postgresql://[::1", "postgresql://", "",
    "/proc/trek.db", "/nonexistent-folder/trek.db", ".", "postgres://u@/x?password=pw",
    "mysql://x/y", "sqlite:///trek.db", "mysql://u:pw@host/x",
])


def value_for(param: click.Parameter) -> st.SearchStrategy[str]:
    """A strategy for one value of a click parameter, mixing sensible and hostile values."""
    kind = param.type
    sensible: st.SearchStrategy[str]
    if isinstance(kind, click.Choice):
        sensible = st.sampled_from([str(c) for c in kind.choices])
    elif isinstance(kind, click.IntRange | click.types.IntParamType):
        sensible = st.integers(0, 12).map(str)
    elif kind.name in ("NAME=N",):
        sensible = st.builds(lambda k, n: f"{k}={n}",
                             st.sampled_from(["provisions", "ammo", "Kira", "kira", "ride",
                                              "ground-speed", "upkeep-provisions"]), NUMBERS)
    elif kind.name in ("NAME=MODE",):
        sensible = st.builds(lambda k, m: f"{k}={m}", st.sampled_from(NAMES),
                             st.sampled_from(["camp", "saddle", "none", "x"]))
    elif kind.name == "X,Y":
        sensible = st.builds(lambda x, y: f"{x},{y}", NUMBERS, NUMBERS)
    elif kind.name == "POINT":
        sensible = st.sampled_from(["1", "now", "day:1", "0", "day:x", "ashes-road@now",
                                    "99999999999999999999"])
    elif isinstance(kind, click.Path):
        sensible = st.sampled_from(["", ".", "/proc/x", "missing.toml", "/dev/null"])
    else:
        sensible = st.sampled_from([*NAMES, "N", "E", "SE", "w", "Kessel Pass"])
    return st.one_of(sensible, NUMBERS, HOSTILE_TEXT)


def commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...],
                                                                           click.Command]]:
    found: list[tuple[tuple[str, ...], click.Command]] = []
    # As click finds them (a group may build a subcommand when first asked for: `day end`).
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        if name in ("demo", "watch", "serve"):
            continue  # the demo makes its own store; watch and serve run until stopped
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            found += commands(command, (*prefix, name))
        else:
            found.append(((*prefix, name), command))
    return found


def mounted() -> click.Group:
    """Every command as a run of `trek` builds it (the rulesets' parts in), in one group."""
    ctx = click.Context(trek, obj=Settings(root=bootstrap()))
    return click.Group("trek", commands={name: command for name in trek.list_commands(ctx)
                                         if (command := trek.get_command(ctx, name))})


COMMANDS = commands(mounted())


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    path, command = draw(st.sampled_from(COMMANDS))
    args = list(path)
    for param in command.params:
        if not draw(st.booleans()):
            continue
        if isinstance(param, click.Argument):
            count = 1 if param.nargs == 1 else draw(st.integers(0, 3))
            args += [draw(value_for(param)) for _ in range(count)]
        elif isinstance(param, click.Option) and param.name not in ("db", "gm", "campaign"):
            flag = param.opts[-1]
            if param.is_flag:
                args.append(flag)
            else:
                # Twice, now and then, for one that takes one value too: that is refused.
                for _ in range(draw(st.integers(1, 2))):
                    args += [flag, draw(value_for(param))]
    if draw(st.integers(0, 9)) == 0:
        args += ["--db", draw(DB_VALUES)]
    if draw(st.booleans()):
        args.append("--json")
    return args


def log_rows(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT originator_id, originator_version, topic, state "
                            "FROM stored_events ORDER BY rowid").fetchall()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A BESM campaign mid-day: two characters, a mount, a vehicle, supplies, a session."""
    db = tmp_path_factory.mktemp("fuzz") / "template.db"
    runner = CliRunner()
    for args in (
        ["init", "Ashes Road", "--seed", "5"],
        ["roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4",
         "--skill", "ride=2"],
        ["roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "5"],
        ["roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira"],
        ["roster", "add-vehicle", "Cart", "--move", "ground-speed=1", "--driver", "Oren"],
        ["supplies", "set", "provisions=5", "fuel=3"],
        ["session", "start", "One"],
        ["day", "start"],
    ):
        result = runner.invoke(trek, ["--db", str(db), "--gm", "fuzz", *args])
        assert result.exit_code == 0, result.output
    return db


FUZZ = settings(max_examples=400, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@FUZZ
@given(line=command_lines())
def test_any_command_line_exits_0_1_or_2_and_a_refusal_records_nothing(
        line: list[str], template: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    db = tmp_path_factory.mktemp("run") / "trek.db"
    shutil.copyfile(template, db)
    before = log_rows(db)
    explicit_db = "--db" in line
    args = line if explicit_db else ["--db", str(db), *line]
    # In a folder of its own: a line may name a file to write (`recap --output`, `map import
    # --to`), which must not land in the checkout.
    with contextlib.chdir(tmp_path_factory.mktemp("cwd")):
        result = CliRunner().invoke(trek, ["--gm", "fuzz", *args], catch_exceptions=True)
    shown = result.output
    assert result.exit_code in (0, 1, 2), (line, shown, result.exception)
    event(f"exit {result.exit_code}")
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        line, repr(result.exception))
    assert "Traceback" not in shown, (line, shown)
    assert "\x1b" not in shown, (line, shown)
    if result.exit_code == 1:
        errors = [row for row in shown.splitlines() if row.startswith("Error: ")]
        assert len(errors) == 1, (line, shown)
    if result.exit_code in (1, 2):
        assert log_rows(db) == before, (line, shown)


# -- usage mistakes in Trek's words, on every command ----------------------------------------------


def _own_options(command: click.Command) -> list[str]:
    every = ("--db", "--campaign", "--gm", "--json", "--preview", "--help")
    return [p.opts[0] for p in command.params if isinstance(p, click.Option)
            and p.opts[0].startswith("--") and p.opts[0] not in every]


# undo and redo read `-1` as the SEQ it is meant to be, and refuse it as one.
OPTION_TAKERS = [(p, c) for p, c in COMMANDS
                 if not c.context_settings.get("ignore_unknown_options")]


@pytest.mark.parametrize(("path", "command"), OPTION_TAKERS,
                         ids=[" ".join(p) for p, _ in OPTION_TAKERS])
def test_an_unknown_option_on_any_command_names_its_own_options(
        path: tuple[str, ...], command: click.Command, tmp_path: Path) -> None:
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(trek, ["--db", str(tmp_path / "trek.db"), *path,
                                           "--no-such-thing"])
    assert result.exit_code == 2, (path, result.output)
    [error] = [row for row in result.output.splitlines() if row.startswith("Error: ")]
    name = " ".join(("trek", *path))
    assert error.startswith(f"Error: `{name}` has no option --no-such-thing; "), error
    own = _own_options(command)
    assert all(option in error for option in own), (own, error)
    assert error.endswith(f"(`{name} --help` lists every option it takes)."), error
    assert "Did you mean" not in error
    assert list(tmp_path.iterdir()) == []


NUMBER_OPTIONS = [(path, param) for path, command in COMMANDS for param in command.params
                  if isinstance(param, click.Option) and isinstance(param.type, click.IntRange)]


@pytest.mark.parametrize(("path", "param"), NUMBER_OPTIONS,
                         ids=[f"{' '.join(p)} {o.opts[0]}" for p, o in NUMBER_OPTIONS])
def test_a_word_where_a_bounded_number_goes_is_refused_with_the_bounds(
        path: tuple[str, ...], param: click.Option, tmp_path: Path) -> None:
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(trek, ["--db", str(tmp_path / "trek.db"), *path,
                                           param.opts[0], "six"])
    assert result.exit_code == 2, (path, result.output)
    [error] = [row for row in result.output.splitlines() if row.startswith("Error: ")]
    assert "must be a whole number " in error, error
    assert "not 'six'" in error, error
    assert "integer" not in error, error


# -- a name given twice, and the GM name ----------------------------------------------------------


def _named_values() -> list[tuple[tuple[str, ...], click.Parameter]]:
    """Every NAME=VALUE parameter that takes several values, with the command it belongs to."""
    from cli.options import NamedValue

    return [(path, param) for path, command in commands(mounted()) for param in command.params
            if isinstance(param.type, NamedValue)
            and (getattr(param, "multiple", False) or param.nargs == -1)]


def _valid_value(param: click.Parameter, name: str) -> str:
    from cli.options import KeyChoice, KeyValue

    kind = param.type
    if isinstance(kind, KeyChoice):
        return f"{name}={kind.choices[0]}"
    if isinstance(kind, KeyValue):
        return f"{name}={max(kind.low or 0, 5)}"
    return f"{name}=3" if param.name == "full_move" else f"{name}=open"


NAMED = _named_values()


def test_every_repeatable_name_value_parameter_is_found() -> None:
    found = {(" ".join(path), param.name) for path, param in NAMED}
    for expected in (("roster add-character", "skills"), ("roster add-character", "attributes"),
                     ("day end", "rests"), ("forced-march", "rolls"), ("supplies", "amounts"),
                     ("encounter round", "passes"), ("encounter add", "full_move"),
                     ("init", "terrains"), ("map import", "terrains")):
        assert expected in found


@FUZZ
@given(data=st.data())
def test_a_name_given_twice_to_any_name_value_parameter_is_refused(
        data: st.DataObject, template: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    path, param = data.draw(st.sampled_from(NAMED))
    # Any name: it is refused as given twice before anything checks what it names.
    name = data.draw(st.sampled_from(["Kira", "provisions", "fuel", "land", "woods", "ride"]))
    first, second = _valid_value(param, name), _valid_value(param, name)
    if isinstance(param, click.Argument):
        mode = ["add"] if path == ("supplies",) else []
        line = [*path, *mode, first, second]
    else:
        flag = param.opts[0]
        line = [*path, flag, first, flag, second]
    db = tmp_path_factory.mktemp("twice") / "trek.db"
    shutil.copyfile(template, db)
    before = log_rows(db)
    with contextlib.chdir(tmp_path_factory.mktemp("cwd")):
        result = CliRunner().invoke(trek, ["--db", str(db), "--gm", "fuzz", *line])
    assert result.exit_code == 1, (line, result.output)
    [error] = [row for row in result.output.splitlines() if row.startswith("Error: ")]
    # (--full-move reads its type in small letters.)
    assert f"{name} is given twice".casefold() in error.casefold(), (line, error)
    assert log_rows(db) == before


ONE_VALUE = [(path, param) for path, command in COMMANDS for param in command.params
             if isinstance(param, click.Option) and not param.multiple and not param.count
             and not param.is_flag]


@FUZZ
@given(data=st.data())
def test_an_option_that_takes_one_value_given_twice_is_refused(
        data: st.DataObject, template: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    path, param = data.draw(st.sampled_from(ONE_VALUE))
    flag = data.draw(st.sampled_from(param.opts))
    line = [*path, flag, data.draw(value_for(param)), flag, data.draw(value_for(param))]
    db = tmp_path_factory.mktemp("once") / "trek.db"
    shutil.copyfile(template, db)
    before = log_rows(db)
    with contextlib.chdir(tmp_path_factory.mktemp("cwd")):
        result = CliRunner().invoke(trek, ["--db", str(db), "--gm", "fuzz", *line])
    assert result.exit_code == 2, (line, result.output)
    assert f"{param.opts[0]} is given twice; it takes one value" in result.output, (
        line, result.output)
    assert log_rows(db) == before


@FUZZ
@given(gm=HOSTILE_TEXT)
def test_the_gm_name_is_recorded_only_when_it_is_a_name(
        gm: str, template: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    from domain.bounds import MAX_NAME
    from domain.values import text_problem

    db = tmp_path_factory.mktemp("gm") / "trek.db"
    shutil.copyfile(template, db)
    before = log_rows(db)
    result = CliRunner().invoke(trek, ["--db", str(db), "--gm", gm, "supplies", "add",
                                       "provisions=1"])
    shown = result.output
    assert "\x1b" not in shown
    assert "\x07" not in shown
    if gm == "":
        a_name = False
    else:
        a_name = (text_problem(gm, limit=MAX_NAME) is None and gm == gm.strip()
                  and "=" not in gm)
    if a_name:
        assert result.exit_code == 0, (gm, shown)
        assert len(log_rows(db)) == len(before) + 1
    else:
        assert result.exit_code == 1, (gm, shown)
        assert "GM name" in shown, (gm, shown)
        assert log_rows(db) == before
