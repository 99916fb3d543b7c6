"""`trek plan`: the odds of reaching a square by each coming day, and what it will cost.

The journey is played forward by domain/plan.py with the ruleset's own decisions; this module
reads the campaign (never creating or changing a store), checks the request, and shows the
figures as lines, JSON, or a route picture shaded by how often the trials passed each square.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cli import render
from cli.context import open_store, root, settings
from cli.options import PointType, SquareType, TrekCommand, extended, party_option, store_options
from domain.bounds import MAX_SEED
from domain.errors import RuleViolation, TrackerError
from domain.geometry import Square
from domain.plan import MAX_DAYS, MAX_TRIALS, Outcome, Policy, check_plan_request, plan
from tracker.points import Point

if TYPE_CHECKING:
    from cli.bootstrap import Root

DEFAULT_TRIALS = 10_000
DEFAULT_DAYS = 10


@click.command(cls=TrekCommand, name="plan")
@click.option("--to", "to", required=True, type=SquareType(),
              help="The square to reach, X,Y.")
@click.option("--as-of", "as_of", type=PointType(),
              help="Plan from the state right after event SEQ, or the end of day N (day:N).")
@click.option("--days", type=int, default=DEFAULT_DAYS, show_default=True,
              help=f"How many days ahead to play (1 to {MAX_DAYS}).")
@click.option("--trials", type=int, default=DEFAULT_TRIALS, show_default=True,
              help=f"How many times to play the journey (1 to {MAX_TRIALS}).")
@click.option("--seed", type=int, default=None,
              help="The plan's dice seed (default: the campaign's); the same seed gives the "
                   "same figures.")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Also draw the route picture, squares shaded by how often trials passed "
                   "them, to this file.")
@party_option
@store_options
def plan_command(to: Square, as_of: Point | None, days: int, trials: int, seed: int | None,
                 svg_file: Path | None, **choices: Any) -> None:
    """Play the journey to X,Y forward many times and show the odds of arriving by each day.

    The party follows the cheapest legal path each day, as `move --to` would, and does what
    the policy options say (each off unless given); every roll is the ruleset's own, drawn
    from the plan's seed. Nothing is recorded. Shows the share of trials arrived by the end
    of each day, the most likely arrival day, the provisions, fuel and ammo left on arrival
    (expected and worst tenth), and the chance of losing each mount or vehicle. A journey
    with no roll in it (travel that never rolls, or a policy that rolls nothing) is played
    once and said to be certain.
    """
    # The rulesets' own policy options (every other parameter is named above), each off
    # unless given, in the order the command lists them.
    listed = [param.name for param in click.get_current_context().command.params]
    policy: Policy = {name: choices[name] for name in listed if name in choices}
    # Bounds first: a bad request opens no store.
    if not 1 <= trials <= MAX_TRIALS:
        raise RuleViolation(f"--trials is 1 to {MAX_TRIALS}, not {trials}")
    if not 1 <= days <= MAX_DAYS:
        raise RuleViolation(f"--days is 1 to {MAX_DAYS}, not {days}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise RuleViolation(f"--seed is 0 to {MAX_SEED}, not {seed}")
    trek_app = open_store(writes=False)
    name = trek_app.resolve(settings().campaign)
    if as_of is None or as_of.kind == "now":
        view = trek_app.queries.view(name)
    else:
        view = trek_app.queries.view_as_of(name, trek_app.queries.seq_of(name, as_of))
    ruleset = trek_app.rulesets.named(view.ruleset)
    if ruleset.plan_rules is None:
        planned = [r.name for r in trek_app.rulesets if r.plan_rules is not None]
        raise RuleViolation(f"the {view.ruleset} ruleset has no overland travel to plan; "
                            f"`trek plan` plays {' and '.join(planned)} journeys")
    if svg_file is not None and view.map is None:
        raise RuleViolation(f"the campaign {name} has no map to draw the plan on; leave out "
                            "--svg")
    # The journey of the party in use (or --party), from its own square, day and supplies.
    game = view.game.focused(trek_app.acting_party(name, view.game, settings().party))
    check_plan_request(ruleset, game, view.map, to, policy, trials, days)
    used_seed = view.seed if seed is None else seed
    outcome = plan(ruleset, game, view.map, to, policy=policy, trials=trials, days=days,
                   seed=used_seed, squares=True)
    doc = plan_document(name, view.ruleset, game.position, to, used_seed, policy, outcome)
    if svg_file is not None:
        seq = view.events
        route = trek_app.queries.route(name, as_of=seq)
        _write_svg(route, doc, outcome, svg_file)
        doc["svg"] = str(svg_file)
    if settings().json:
        render.emit_json(doc)
    else:
        _print(doc)


def _percent(share: float) -> str:
    return f"{100 * share:.1f}%"


def plan_document(campaign: str, ruleset: str, start: Square, to: Square, seed: int,
                  policy: Policy, outcome: Outcome) -> dict[str, Any]:
    """The plan as `trek plan --json` prints it (RULES §13, and the keys docs/plan.md lists)."""
    arrival = None
    if outcome.exact is not None:
        day, spent, journey = outcome.exact
        arrival = {"day": day, "spent": str(spent), "exact": str(day - 1 + spent),
                   "journey_days": str(journey)}
    elif outcome.certain and outcome.most_likely is not None:
        arrival = {"day": outcome.most_likely, "spent": None, "exact": None,
                   "journey_days": None}
    return {
        "campaign": campaign,
        "ruleset": ruleset,
        "from": [start.x, start.y],
        "to": [to.x, to.y],
        "trials": outcome.trials,
        "seed": seed,
        "certain": outcome.certain,
        "policy": dict(policy),
        "days": [{"day": day, "arrived": share} for day, share in outcome.days],
        "arrived": outcome.days[-1][1] if outcome.days else 0.0,
        "most_likely_day": outcome.most_likely,
        "arrival": arrival,
        "on_arrival": outcome.supplies,
        "losses": outcome.losses,
        "squares": [{"x": sq.x, "y": sq.y, "share": share}
                    for sq, share in sorted(outcome.passed.items(),
                                            key=lambda item: (item[0].y, item[0].x))],
    }


def _print(doc: dict[str, Any]) -> None:
    out = _Lines()
    to = f"{doc['to'][0]},{doc['to'][1]}"
    words_of = root().plan_policy_words
    chosen = [words_of[name](value) for name, value in doc["policy"].items() if value]
    words = ", ".join(chosen) or "none"
    trials = ("certain: nothing rolls, played once" if doc["certain"]
              else f"{doc['trials']} trials, seed {doc['seed']}")
    out.print(f"Plan for {doc['campaign']} from {doc['from'][0]},{doc['from'][1]} to {to} "
              f"({trials}); policy: {words}.")
    out.print("Day  Arrived by its end")
    for entry in doc["days"]:
        out.print(f"{entry['day']:>3}  {_percent(entry['arrived']):>7}")
    arrival = doc["arrival"]
    if arrival is not None and arrival["spent"] is not None:
        out.print(f"Certain: arrives on day {arrival['day']}, {arrival['spent']} of the way "
                  f"through it (the journey takes {arrival['journey_days']} days).")
    elif arrival is not None:
        out.print(f"Certain: arrives on day {arrival['day']}.")
    elif doc["most_likely_day"] is not None:
        day = doc["most_likely_day"]
        share = next(e["arrived"] for e in doc["days"] if e["day"] == day) - next(
            (e["arrived"] for e in doc["days"] if e["day"] == day - 1), 0.0)
        out.print(f"Most likely arrival day: {day} ({_percent(share)} of trials arrive that "
                  "day).")
    if doc["most_likely_day"] is None:
        nobody = "Certain: the party does not reach" if doc["certain"] else "No trial reaches"
        out.print(f"{nobody} {to} within {len(doc['days'])} day(s).")
    supplies = doc["on_arrival"]
    if supplies is not None:
        parts = [f"{kind} {figures['expected']:.1f} (worst tenth {figures['worst_decile']})"
                 for kind, figures in supplies.items()]
        out.print("Left on arrival, expected: " + ", ".join(parts) + ".")
    for name, loss in doc["losses"].items():
        out.print(f"{name} ({loss['kind']}): {loss['fate']} in {_percent(loss['chance'])} of "
                  "trials.")


class _Lines:
    """Lines to the terminal as written: no markup read in them, never wrapped."""

    def print(self, text: str) -> None:
        render.console.print(text, markup=False, soft_wrap=True)


def _write_svg(route: Mapping[str, Any], doc: dict[str, Any], outcome: Outcome,
               target: Path) -> None:
    from cli.route import CELL, MARGIN, TOP, KeyEntry, route_svg

    shade = "#e65100"
    overlay = ['<g class="plan" stroke="none">']
    for square, share in sorted(outcome.passed.items()):
        x = MARGIN + square.x * CELL
        y = TOP + square.y * CELL
        overlay.append(
            f'<rect class="planned" data-x="{square.x}" data-y="{square.y}" '
            f'data-share="{share:.4f}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
            f'fill="{shade}" fill-opacity="{0.15 + 0.6 * share:.3f}">'
            f"<title>{_percent(share)} of trials pass {square.x},{square.y}</title></rect>")
    tx, ty = doc["to"]
    overlay.append(f'<rect class="plan-target" x="{MARGIN + tx * CELL + 3}" '
                   f'y="{TOP + ty * CELL + 3}" width="{CELL - 6}" height="{CELL - 6}" '
                   f'fill="none" stroke="{shade}" stroke-width="3"/>')
    overlay.append("</g>")
    key = [
        KeyEntry("plan:passed", f'<rect x="0" y="-10" width="14" height="12" fill="{shade}" '
                 'fill-opacity="0.6"/>', "planned: darker = more trials pass"),
        KeyEntry("plan:target", f'<rect x="0" y="-10" width="14" height="12" fill="none" '
                 f'stroke="{shade}" stroke-width="2"/>', f"target ({tx},{ty})"),
    ]
    arrived = _percent(doc["arrived"])
    title = (f"{route['map']['name']}: plan for {route['name']} to {tx},{ty}, "
             f"{arrived} arrive within {len(doc['days'])} day(s)")
    picture = route_svg(route, overlay=overlay, extra_key=key, title=title)
    try:
        target.write_text(picture, encoding="utf-8")
    except OSError as error:
        raise TrackerError(f"cannot write {target}: {error.strerror or error}") from None


def mounted(root: Root) -> click.Command:
    """`trek plan` for `root`: each ruleset's policy options (its `CommandLine.plan_options`)
    before `--svg` and the store's options."""
    at = next(i for i, p in enumerate(plan_command.params) if p.name == "svg_file")
    seen: set[str] = set()
    options: list[click.Option] = []
    for _, line in root.lines():
        for option in line.plan_options:
            assert option.name is not None
            if option.name not in seen:
                seen.add(option.name)
                options.append(option)
    return extended(plan_command, options, at=at)
