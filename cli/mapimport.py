"""`trek map import` and the `--map FILE` of `init` and `encounter start` for maps drawn in
other tools: read the file, convert it for what it is meant for, check it with the loader."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cli import render
from cli.context import rulesets
from domain.errors import MapError, TrackerError
from tracker.mapformats import (
    EXTENSIONS,
    FORMAT_TITLES,
    Grid,
    Imported,
    Target,
    convert,
    format_of,
    parse,
    unread_extension,
)
from tracker.mapformats.picture import Picture
from tracker.mapformats.tomlfile import load_battle_map, load_map


def is_imported(path: Path) -> bool:
    """Whether `--map FILE` names another tool's file (False: a Trek `.toml` map); a file
    whose extension Trek does not read is refused, naming the ones it does."""
    suffix = path.suffix.lower()
    if suffix == ".toml":
        return False
    if suffix in EXTENSIONS:
        return True
    raise TrackerError(unread_extension(str(path), suffix))


def read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise TrackerError(f"cannot read the {what} {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise TrackerError(f"the {what} {path} is not UTF-8 text") from None


def overland_target(ruleset: str) -> Target:
    return Target(frozenset(t.value for t in rulesets().named(ruleset).terrains), battle=False)


def battle_target(ruleset: str) -> Target:
    return Target(rulesets().named(ruleset).battle_legend.words | {"wall"}, battle=True)


def import_file(path: Path, ruleset: str, *, battle: bool,
                terrains: Sequence[tuple[str, str]] = (), grid: Grid | None = None,
                what: str = "map") -> Imported:
    """The file converted to Trek's TOML for `ruleset` (a battle map or an overland map) and
    checked by the same loader a TOML map goes through."""
    text = read_text(path, what)
    target = battle_target(ruleset) if battle else overland_target(ruleset)
    try:
        source = parse(format_of(path.name, text), text, path.stem, grid=grid,
                       folder=path.parent)
        imported = convert(source, target, dict(terrains))
    except MapError as error:
        raise TrackerError(f"cannot import the {what} {path}: {error}") from None
    try:
        if battle:
            load_battle_map(imported.toml, rulesets().named(ruleset).battle_legend)
        else:
            load_map(imported.toml, rulesets().named(ruleset))
    except MapError as error:
        raise TrackerError(f"the {what} imported from {path} cannot be used ({error})") from None
    return imported


def map_text(path: Path, ruleset: str | Callable[[], str], *, battle: bool,
             terrains: Sequence[tuple[str, str]] = ()) -> tuple[str, str | None, Picture | None]:
    """What `--map FILE` hands the tracker (a TOML file as it is, another tool's imported for
    the ruleset, which may be given as a function asked only then), a line to show once the
    command has recorded, saying what was imported, and the picture under its grid, checked
    (None: the map has none)."""
    what = "battle map" if battle else "map"
    if not is_imported(path):
        if terrains:
            raise TrackerError("--terrain is for maps from other tools; a .toml map says its "
                               "terrain in its legend")
        text = read_text(path, what)
        return text, None, toml_picture(path, text, what)
    if callable(ruleset):
        ruleset = ruleset()
    imported = import_file(path, ruleset, battle=battle, terrains=terrains, what=what)
    report = imported.report
    note = (f"Imported {path} ({FORMAT_TITLES[report['format']]}, {report['width']}×"
            f"{report['height']} {report['grid']}); `trek map import` lists what it read "
            "and ignored.")
    return imported.toml, note, imported_picture(path, imported)


def toml_picture(path: Path, text: str, what: str) -> Picture | None:
    """The picture a TOML map names (`image`, a file beside the map), read and checked."""
    from tracker.mapformats.tomlfile import picture_request

    try:
        request = picture_request(text)
    except MapError as error:
        raise TrackerError(f"the {what} {path} was refused at {error}") from None
    if request is None:
        return None
    file = path.parent / request.file
    try:
        data = file.read_bytes()
    except OSError as error:
        raise TrackerError(f"cannot read the picture {file} that the {what} {path} names: "
                           f"{error.strerror}") from None
    return checked_picture(data, f"the picture {file}").placed(request.pixels_per_square,
                                                               request.origin)


def imported_picture(path: Path, imported: Imported) -> Picture | None:
    """The picture another tool's file carries (Universal VTT's `image`), checked; its grid
    starts at the picture's top-left corner."""
    if imported.picture is None:
        return None
    return checked_picture(imported.picture, f"the picture in {path}").placed(
        imported.pixels_per_square, (0.0, 0.0))


def checked_picture(data: bytes, what: str) -> Picture:
    from tracker.mapformats.picture import check_picture

    try:
        return check_picture(data, what)
    except MapError as error:
        raise TrackerError(str(error)) from None


def write_map(path: Path, text: str, *, force: bool) -> None:
    """Write the TOML beside its final place and move it there, so a failure leaves nothing
    half-written; an existing file is kept unless --force."""
    if path.exists() and not force:
        raise TrackerError(f"{path} already exists; give --force to replace it or pick "
                           "another --to file")
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".trek-map-", suffix=".toml")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise TrackerError(f"cannot write {path}: {error.strerror}") from None


_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp"}


def write_map_and_picture(path: Path, text: str, picture: Picture, *, force: bool) -> Path:
    """Write the picture beside the TOML map (same name, the picture's own suffix) and the map
    naming it; a failure leaves neither."""
    from tracker.mapformats import toml_string

    image = path.with_suffix(_SUFFIXES[picture.media_type])
    if image.exists() and not force:
        raise TrackerError(f"{image} already exists; give --force to replace it or pick "
                           "another --to file")
    if path.exists() and not force:
        raise TrackerError(f"{path} already exists; give --force to replace it or pick "
                           "another --to file")
    placed = (f"[map]\nimage = {toml_string(image.name)}\n"
              f"pixels_per_square = {picture.pixels_per_square:g}\n")
    written = image.exists()
    try:
        image.write_bytes(picture.data)
    except OSError as error:
        raise TrackerError(f"cannot write {image}: {error.strerror}") from None
    try:
        write_map(path, text.replace("[map]\n", placed, 1), force=force)
    except BaseException:
        if not written:
            image.unlink(missing_ok=True)
        raise
    return image


def show_report(report: dict[str, Any]) -> None:
    """The human report: what was written, what was read, what was left alone."""
    title = FORMAT_TITLES[report["format"]]
    console = render.console
    console.print(f"Wrote {report['wrote']}: {report['width']}×{report['height']} "
                  f"{report['grid']} map from a {title} file.", markup=False)
    if report.get("picture"):
        console.print(f"Wrote its picture to {report['picture']}.", markup=False)
    console.print("Terrains:", markup=False)
    for word, terrain in report["terrains"].items():
        console.print(f"  {word} -> {terrain}", markup=False)
    console.print("Used:", markup=False)
    for item in report["used"]:
        console.print(f"  {item}", markup=False)
    if report.get("walls") or report.get("doors"):
        console.print(f"Walls on the edges between squares: {report['walls']} runs; doors: "
                      f"{report['doors']}", markup=False)
    console.print("Ignored:", markup=False)
    for item in report["ignored"] or ["nothing"]:
        console.print(f"  {item}", markup=False)
