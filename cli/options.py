"""Shared click options and parameter types for the trek commands."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from domain.bounds import MAX_SEQ

if TYPE_CHECKING:  # imported where used, so `trek --help` and `trek status` start quickly
    from domain.geometry import Square
    from domain.options import CharacterOptions
    from tracker.points import Point

F = TypeVar("F", bound=Callable[..., Any])


class Settings:
    """What the group-level options said; a command's own options override them. (A plain
    class: every command makes one, and a dataclass costs more to define than it gives.)"""

    def __init__(self, db: str = "trek.db", campaign: str | None = None, gm: str | None = None,
                 json: bool = False, preview: bool = False, party: str | None = None,
                 explicit: set[str] | None = None, opened: list[Any] | None = None,
                 kept: Any = None, parsing: bool = False, root: Any = None) -> None:
        self.db = db
        self.campaign = campaign
        self.gm = gm
        self.json = json
        # `--preview`: decide the event a recording command would record, show it, store
        # nothing.
        self.preview = preview
        # `--party NAME`: the party an overland command acts on (None: the party in use).
        self.party = party
        # Settings given on the command line, which an environment variable must not
        # override.
        self.explicit: set[str] = explicit if explicit is not None else set()
        # The stores this command opened (tracker.app.Trek), to tell truly what a failure
        # left.
        self.opened: list[Any] = opened if opened is not None else []
        # The stores a front-end keeps open from one command to the next (`trek shell`): a
        # cli.context.KeptStores.
        self.kept = kept
        # Words read into a command and nothing else (cli/parse.py): `record` hands the
        # command back instead of opening a store.
        self.parsing = parsing
        # The composition root (cli.bootstrap.Root) the command plays with: handed in by the
        # shell, the server or a test, else made when first needed.
        self.root = root


def _merge(name: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        settings = ctx.ensure_object(Settings)
        if value is not None and value is not False:
            from_env = (param.name is not None and ctx.get_parameter_source(param.name)
                        is click.core.ParameterSource.ENVIRONMENT)
            # `trek --db X status` with TREK_DB set: the command's own --db comes from the
            # environment and must not replace the X given before the command name.
            if from_env and name in settings.explicit:
                return value
            setattr(settings, name, value)
            if not from_env:
                settings.explicit.add(name)
        return value
    return callback


def refuse_repeated(command: click.Command, ctx: click.Context, args: list[str]) -> None:
    """Refuse an option that takes one value given more than once (`--roll 2 --roll 3`):
    click would keep the last silently. A repeatable option (`multiple`) and a flag are not
    checked; the words are split as the command will split them, before any value is read."""
    if ctx.resilient_parsing:
        return
    _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    seen: set[click.Parameter] = set()
    for param in order:
        if not isinstance(param, click.Option) or param.multiple or param.count \
                or param.is_flag:
            continue
        if param in seen:
            name = "/".join(param.opts)
            raise click.UsageError(f"{name} is given twice; it takes one value, so give it "
                                   "once", ctx)
        seen.add(param)


class TrekCommand(click.Command):
    """Every trek command: an option that takes one value is refused when given twice."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        refuse_repeated(self, ctx, args)
        return super().parse_args(ctx, args)


class TrekSubgroup(click.Group):
    """A group of trek commands (`roster`, `encounter`): its commands and groups are made as
    `TrekCommand` and `TrekSubgroup`, and its own options are checked alike."""

    command_class = TrekCommand
    group_class = type
    # Subcommands built with the rulesets' parts the first time each is asked for, by name
    # (`regrouped`, below): the group's other commands load none of them.
    later: Mapping[str, Callable[[], click.Command]] = {}
    # Subcommands of the rulesets' own, made the first time a name the group does not hold is
    # asked for, or its commands are listed (its help).
    others: Callable[[], Sequence[click.Command]] | None = None

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        build = self.later.get(cmd_name)
        if build is not None:
            self.commands[cmd_name] = build()
            self.later = {name: made for name, made in self.later.items() if name != cmd_name}
        elif cmd_name not in self.commands:
            self._add_others()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_others()
        return super().list_commands(ctx)

    def _add_others(self) -> None:
        if self.others is not None:
            made, self.others = self.others(), None
            for command in made:
                assert command.name is not None
                self.commands.setdefault(command.name, command)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        refuse_repeated(self, ctx, args)
        return super().parse_args(ctx, args)


def extended(command: click.Command, options: Sequence[click.Option] = (), *,
             at: int | None = None,
             changed: Mapping[str, Callable[[click.Parameter], click.Parameter]] | None = None
             ) -> click.Command:
    """A new command like `command` with `options` added (at position `at`, else last) and
    the parameters named in `changed` replaced by what each function makes of them: the
    command given, and every parameter of it, are left as they are."""
    import copy

    params = [changed[p.name](p) if changed and p.name in changed else p
              for p in command.params]
    if at is None:
        params.extend(options)
    else:
        params[at:at] = options
    made = copy.copy(command)
    made.params = params
    return made


def regrouped(group: click.Group, commands: Sequence[click.Command] = (), *,
              later: Mapping[str, Callable[[], click.Command]] | None = None,
              others: Callable[[], Sequence[click.Command]] | None = None) -> click.Group:
    """A new group like `group` whose commands are its own with `commands` put in (a command
    of the same name replaced), those of `later` made by their functions when first asked
    for, and those `others` makes put beside them (none replacing one the group holds) when
    a name it does not hold is asked for or its commands are listed (a `TrekSubgroup`'s);
    `group` is left as it is."""
    import copy

    made = copy.copy(group)
    made.commands = dict(group.commands)
    for command in commands:
        assert command.name is not None
        made.commands[command.name] = command
    if later or others:
        assert isinstance(made, TrekSubgroup)
        made.later = dict(later or {})
        made.others = others
    return made


def store_options(func: F) -> F:
    """--db, --campaign, --gm and --json, accepted before or after the command name."""
    for option in reversed([
        click.option("--db", envvar="TREK_DB", expose_value=False, callback=_merge("db"),
                     help="SQLite file path or postgresql:// URL (default ./trek.db)."),
        click.option("--campaign", envvar="TREK_CAMPAIGN", expose_value=False,
                     callback=_merge("campaign"),
                     help="Campaign slug; may be left out when the store holds one."),
        click.option("--gm", envvar="TREK_GM", expose_value=False, callback=_merge("gm"),
                     help="Name stamped on recorded events (default: the OS user)."),
        click.option("--json", "as_json", is_flag=True, default=False, expose_value=False,
                     callback=_merge("json"), help="Print JSON for scripts."),
    ]):
        func = option(func)
    return func


PREVIEW_HELP = ("Show the event this would record (with --json, exactly what recording "
                "prints) and record nothing; a refusal is still refused.")


# The commands of the table, by callback: each builds one command object from its parameters
# and hands it to `cli.context.record`, reading and writing nothing before; cli/parse.py runs
# these (and only these) to turn words into a command.
TABLE_COMMANDS: set[Callable[..., Any]] = set()
# The read commands of the table, by callback: a function giving the query each stands for
# (cli/reads.py, loaded when a query is first made), made from its parameters by name without
# running the callback.
QUERY_COMMANDS: dict[Callable[..., Any], Callable[[], type[Any]]] = {}


def recording_options(func: F) -> F:
    """The store options of a command of the table that records one event, and --preview.

    Every recording command takes these instead of `store_options`; `cli.context.record`
    reads --preview, so no command handles it itself.
    """
    TABLE_COMMANDS.add(func)
    return store_recording_options(func)


def store_recording_options(func: F) -> F:
    """--preview and the store options of a command that records but is not one of the
    table's (it makes a campaign: `init`, `branch`)."""
    func = click.option("--preview", is_flag=True, default=False, expose_value=False,
                        callback=_merge("preview"), help=PREVIEW_HELP)(func)
    return store_options(func)


def party_option(func: F) -> F:
    """--party NAME: the party an overland command acts on (RULES.md §15; default: the party
    in use, as `trek party use` sets it)."""
    return click.option("--party", expose_value=False, callback=_merge("party"),
                        metavar="NAME",
                        help="The party this acts on (default: the party in use).")(func)


def party_read_option(func: F) -> F:
    """--party NAME on a read of the table: the party it is told from, also a parameter of the
    command (its query's field, cli/reads.py)."""
    return click.option("--party", callback=_merge("party"), metavar="NAME",
                        help="Told from party NAME's side (default: the party in use).")(func)


def reads(query: Callable[[], type[Any]]) -> Callable[[F], F]:
    """Mark a read command of the table as the query `query()` gives, whose fields are the
    command's parameters by name (a function importing it: defining the command loads none)."""
    def mark(func: F) -> F:
        QUERY_COMMANDS[func] = query
        return func
    return mark


def character_options(func: F) -> F:
    """The stat options `roster add-character` and `encounter add` share (skills and
    attributes); each ruleset's own are mounted beside them."""
    for option in reversed([
        click.option("--skill", "skills", type=KeyValue(noun="skill"), multiple=True,
                     help="A skill and its level, e.g. navigation=2 (repeatable)."),
        click.option("--attribute", "attributes", type=KeyValue(noun="attribute"),
                     multiple=True,
                     help="An attribute and its level, e.g. ground-speed=1 (repeatable)."),
    ]):
        func = option(func)
    return func


_STATS = ("health_max", "energy_max")


def character_from(name: str, given: dict[str, Any]) -> CharacterOptions:
    """The CharacterOptions of a command's options: the shared stats by name, the rest as the
    ruleset's own."""
    from domain.options import CharacterOptions

    rest = dict(given)
    stats = {key: rest.pop(key) for key in _STATS if key in rest}
    return CharacterOptions(name=name, skills=dict(rest.pop("skills", ())),
                            attributes=dict(rest.pop("attributes", ())),
                            extra=given_extras(rest), **stats)


def given_extras(extra: dict[str, Any]) -> dict[str, Any]:
    """The ruleset stat options actually given (click passes every mounted one)."""
    # `is` for None and False: 0 == False, and a 0 given (`--body 0`) is refused by the rules.
    return {key: list(value) if isinstance(value, tuple) else value
            for key, value in extra.items()
            if value is not None and value is not False and value != ()}


class NamedValue(click.ParamType[tuple[str, Any]], ABC):
    """The base of every NAME=VALUE type (`--skill ride=2`, `--rest Kira=camp`, `provisions=3`):
    a name given twice to one option or argument is refused with one sentence (exit 1), never
    settled by the last one given. Each subclass says how one value reads (`parse`) and what
    its names are (`noun`, for the sentence)."""

    def __init__(self, noun: str = "name") -> None:
        self.noun = noun

    @abstractmethod
    def parse(self, value: str, param: click.Parameter | None,
              ctx: click.Context | None) -> tuple[str, Any]:
        """One NAME=VALUE word as its name and value (a BadParameter when it is not one)."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> tuple[str, Any]:
        if isinstance(value, tuple):
            return value
        pair = self.parse(str(value), param, ctx)
        if ctx is not None and param is not None:
            # Every value of one parameter is converted in the same context, one after another.
            seen: set[str] = ctx.meta.setdefault(f"trek.names.{id(param)}", set())
            if pair[0] in seen:
                from domain.errors import TrackerError

                flag = f" to {param.opts[0]}" if isinstance(param, click.Option) else ""
                raise TrackerError(f"{pair[0]} is given twice{flag}; name each {self.noun} once")
            seen.add(pair[0])
        return pair


_WORD = re.compile(r"[\w-]{1,40}")


class KeyValue(NamedValue):
    """NAME=N with a whole number, as in --skill navigation=2 or provisions=3."""

    name = "NAME=N"

    def __init__(self, low: int | None = None, high: int | None = None, *,
                 noun: str = "name", example: str = "navigation=2") -> None:
        super().__init__(noun)
        self.low = low
        self.high = high
        self.example = example

    def parse(self, value: str, param: click.Parameter | None,
              ctx: click.Context | None) -> tuple[str, int]:
        key, sep, number = value.partition("=")
        if not sep or not key.strip():
            # A bare word is most likely the name with its number left out.
            word = value.strip()
            example = self.example
            if not sep and word.isdigit():
                # A bare number is most likely the number with its name left out.
                example = f"{self.example.partition('=')[0]}={word}"
            elif not sep and _WORD.fullmatch(word):
                example = f"{word}=2"
            self.fail(f"{value!r} should be NAME=N, a {self.noun} and a number, for example "
                      f"{example}", param, ctx)
        try:
            amount = int(number)
        except ValueError:
            self.fail(f"{value!r}: {number!r} is not a whole number", param, ctx)
        if (self.low is not None and amount < self.low) or (
                self.high is not None and amount > self.high):
            self.fail(f"{value!r}: the number must be {self._bounds()}", param, ctx)
        return key.strip(), amount

    def _bounds(self) -> str:
        if self.high is None:
            return f"{self.low} or more"
        if self.low is None:
            return f"{self.high} or less"
        return f"{self.low} to {self.high}"


class SquareType(click.ParamType["Square"]):
    name = "X,Y"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Square:
        from domain.geometry import Square, parse_square

        if isinstance(value, Square):
            return value
        try:
            return parse_square(str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)


class KeyChoice(NamedValue):
    """NAME=CHOICE, as in --rest Kira=saddle."""

    name = "NAME=MODE"

    def __init__(self, choices: tuple[str, ...], *, noun: str = "name") -> None:
        super().__init__(noun)
        self.choices = choices

    def parse(self, value: str, param: click.Parameter | None,
              ctx: click.Context | None) -> tuple[str, str]:
        key, sep, choice = value.partition("=")
        if not sep or not key.strip():
            self.fail(f"{value!r} should be NAME=MODE", param, ctx)
        if choice not in self.choices:
            self.fail(f"{choice!r} is not one of {', '.join(self.choices)}", param, ctx)
        return key.strip(), choice


class Whole(click.IntRange):
    """A whole number within bounds, refused in words ("the 2d6 total must be a whole number
    from 2 to 12, not 'six'") rather than in click's range notation."""

    def __init__(self, low: int | None = None, high: int | None = None, *,
                 what: str = "the number") -> None:
        super().__init__(low, high)
        self.what = what

    def _span(self) -> str:
        if self.min is not None and self.max is not None:
            return f"from {self.min} to {self.max}"
        return f"of {self.min} or more" if self.min is not None else f"of at most {self.max}"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"{self.what} must be a whole number {self._span()}, not {value!r}",
                          param, ctx)
        if (self.min is not None and number < self.min) or (
                self.max is not None and number > self.max):
            self.fail(f"{self.what} must be {self._span()}, not {number}", param, ctx)
        return number


ROLL = Whole(2, 12, what="the 2d6 total")
ROLL_HELP = "Total the GM rolled on 2d6 (2-12); left out, Trek rolls from the campaign seed."


class PointType(click.ParamType["Point"]):
    """A point in a campaign's history: SEQ, day:N or now (SLUG@ before it where allowed)."""

    name = "POINT"

    def __init__(self, *, with_campaign: bool = False) -> None:
        self.with_campaign = with_campaign

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Point:
        from tracker.points import Point

        if isinstance(value, Point):
            return value
        try:
            return Point.parse(str(value), with_campaign=self.with_campaign)
        except ValueError as error:
            self.fail(str(error), param, ctx)


# -- output choices and counts shared by several commands ---------------------------------------

CSV_HELP = ("Print CSV for a spreadsheet (RFC 4180, a header row). A text cell starting with "
            "=, +, -, @, a tab or a carriage return gets a leading ' so no spreadsheet runs it "
            "as a formula; numbers stay numbers.")


def csv_or_json(as_csv: bool) -> None:
    """Refuse --csv with --json: each chooses the output."""
    if as_csv and click.get_current_context().ensure_object(Settings).json:
        raise click.UsageError("--csv and --json each choose the output; give one of them.")


class AtLeastOne(click.ParamType[int]):
    """A whole number of 1 or more, refused with a sentence that says what it counts."""

    name = "INTEGER"

    def __init__(self, what: str) -> None:
        self.what = what

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        if isinstance(value, int):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"{self.what} is a whole number of 1 or more, not {value!r}.",
                          param, ctx)
        if not 1 <= number <= MAX_SEQ:
            self.fail(f"{self.what} is a whole number of 1 or more, not {number}.", param, ctx)
        return number


class EventNumber(click.ParamType[int]):
    """A whole number from `low` up (an event's seq, a session, a day, a round), refused in
    words ("SEQ must be 1 or more, not 0") rather than with click's range notation."""

    name = "INTEGER"

    def __init__(self, what: str, *, low: int = 1, hint: str = "") -> None:
        self.what = what
        self.low = low
        self.hint = hint

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        if isinstance(value, int):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"{self.what} must be a whole number, not {value!r}", param, ctx)
        hint = f"; {self.hint}" if self.hint else ""
        if number < self.low:
            self.fail(f"{self.what} must be {self.low} or more, not {number}{hint}", param, ctx)
        if number > MAX_SEQ:
            self.fail(f"{self.what} must be at most {MAX_SEQ:,}, not {number:,}", param, ctx)
        return number


SEQ = EventNumber("SEQ", hint="event numbers start at 1")


TERRAIN_HELP = ("For a map from another tool: what one of its words is in Trek, e.g. "
                "woods=difficult (repeatable).")


class WordTerrain(NamedValue):
    """WORD=TERRAIN, as in --terrain woods=difficult (each word once)."""

    name = "WORD=TERRAIN"

    def __init__(self) -> None:
        super().__init__("word")

    def parse(self, value: str, param: click.Parameter | None,
              ctx: click.Context | None) -> tuple[str, str]:
        word, sep, terrain = value.partition("=")
        if not sep or not word.strip() or not terrain.strip():
            self.fail(f"{value!r} should be WORD=TERRAIN, for example woods=difficult",
                      param, ctx)
        return word.strip(), terrain.strip()
