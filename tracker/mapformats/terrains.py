"""Which Trek terrain word a source word (a Tiled `terrain` property, a Text Mapper type)
becomes, given the words the target map may use."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from domain.errors import MapError

# For each source word, the Trek words it could mean, best first; the first one the target
# allows is taken. The lists end in something every target has where that is honest (open
# ground for forests, walls for what no one walks through).
_PASSABLE_SLOW = ("difficult", "rough", "treacherous", "open")
_BUILT_IN: dict[str, tuple[str, ...]] = {}


def _add(words: Iterable[str], meanings: tuple[str, ...]) -> None:
    for word in words:
        _BUILT_IN[word] = meanings


_add(("open", "grass", "grassland", "plain", "plains", "meadow", "field", "fields", "farmland",
      "floor", "ground", "road", "trail", "path", "desert", "sand", "dirt", "steppe", "savanna",
      "town", "village", "city", "settlement", "ruins", "empty", "clear", "coast",
      # Gnomeyland's settlements (Text Mapper).
      "thorp", "large-town",
      # Text Mapper's default, bright and apocalypse libraries: open land and ruins on it.
      "tundra", "coastal", "island", "ruin", "ruined-tower", "ruined-castle"), ("open",))
_add(("forest", "forests", "woods", "wood", "trees", "tree", "jungle", "fir-forest",
      "pine-forest", "bush", "bushes", "scrub", "brush", "undergrowth", "thicket",
      "fir", "firs", "brushland", "woodland"), _PASSABLE_SLOW)
_add(("hills", "hill", "rough", "badlands", "dunes", "broken", "rocks", "scree",
      "fir-hill", "forest-hill", "green-hills"),
     ("rough", "difficult", "treacherous", "open"))
_add(("swamp", "swamps", "marsh", "marshes", "bog", "fen", "mud", "difficult", "rubble",
      "debris", "wetland"), ("difficult", "rough", "treacherous", "hazard", "water"))
_add(("ice", "snow", "glacier", "treacherous"), ("treacherous", "difficult", "rough", "hazard"))
_add(("mountain", "mountains", "peak", "peaks", "cliff", "cliffs", "feature", "chasm",
      "fir-mountain", "fir-mountains", "forest-mountain", "forest-mountains", "volcano"),
     ("feature", "wall"))
_add(("water", "lake", "sea", "ocean", "deep-water", "pond"),
     ("water", "deep-water", "feature", "wall"))
_add(("river", "stream", "creek", "ford", "shallow-water", "shallows"),
     ("water", "shallow-water", "difficult", "rough", "feature"))
_add(("wall", "walls", "rock", "stone", "building", "house", "tower", "pillar", "column",
      "closed-door", "solid"), ("wall", "feature"))
_add(("hazard", "lava", "fire", "storm", "poison", "acid"), ("hazard", "wall", "feature"))
_add(("stairs", "stair", "steps"), ("stairs", "difficult", "rough", "open"))
_add(("door", "open-door", "doorway", "gate", "bridge"), ("open",))
_add(("high-gravity",), ("high-gravity", "difficult", "rough"))
_add(("low-gravity",), ("low-gravity", "open"))
_add(("zero-gravity",), ("zero-gravity", "difficult", "rough"))


# Colours and shades: Text Mapper draws them as a hex's fill, not a symbol. Gnomeyland (its
# library of ground tints written before the type word, `0106 dark-green fir-forest`) defines
# these as attributes alone: white, shadow, light-soil, soil, dark-soil, rock, dust, sand,
# water, ocean, light-grey, grey, dark-grey, blue-green, poisoned, light-green, green,
# dark-green, dry, port and red; every library of Text Mapper's also styles `default`, the fill
# of a hex with no other style. They are never taken for the type while the line has another
# word; alone on a line, such a word is the hex's ground when Trek knows it as ground, else the
# hex is open ground.
_COLOURS = frozenset({"default", "white", "black", "grey", "gray", "green", "blue", "brown", "red",
                      "yellow", "orange", "purple", "pink", "beige", "tan", "cyan", "magenta",
                      "soil", "dust", "rock", "sand", "water", "ocean", "shadow", "blue-green",
                      "poisoned", "dry", "port"})


def is_colour(word: str) -> bool:
    """Whether `word` is a colour or shade (`light-green`, `dark-grey`, `soil`)."""
    folded = word.casefold()
    for prefix in ("light-", "dark-", "pale-", "deep-", "bright-"):
        folded = folded.removeprefix(prefix)
    return folded in _COLOURS


def built_in(word: str, allowed: frozenset[str]) -> str | None:
    """The Trek word the built-in table gives `word` on a map allowing `allowed`, if any."""
    folded = word.casefold()
    if folded in allowed:
        return folded
    return next((m for m in _BUILT_IN.get(folded, ()) if m in allowed), None)


def knows(word: str, allowed: frozenset[str], overrides: Mapping[str, str]) -> bool:
    """Whether `word` has a meaning on this map (given by --terrain or built in)."""
    return word.casefold() in _folded(overrides) or built_in(word, allowed) is not None


def _folded(overrides: Mapping[str, str]) -> dict[str, str]:
    return {k.casefold(): v for k, v in overrides.items()}


def check_overrides(overrides: Mapping[str, str], allowed: frozenset[str]) -> None:
    """Every --terrain WORD=TERRAIN must name a terrain the map may use."""
    for word, terrain in overrides.items():
        if terrain not in allowed:
            raise MapError(f"--terrain {word}={terrain} names a terrain this map cannot use; "
                           f"use one of {', '.join(sorted(allowed))}")


def resolve_terrains(words: Iterable[str], allowed: frozenset[str],
                     overrides: Mapping[str, str],
                     lines: Mapping[str, Sequence[int]] | None = None,
                     places: Mapping[str, str] | None = None) -> dict[str, str]:
    """The Trek word for every source word, --terrain first; the words Trek cannot place are
    refused all at once, each with the lines it is on (`lines`, where the format knows them)
    or where it is used (`places`, in words, for formats without lines)."""
    check_overrides(overrides, allowed)
    folded = _folded(overrides)
    result: dict[str, str] = {}
    unknown: list[str] = []
    for word in words:
        meaning = folded.get(word.casefold()) or built_in(word, allowed)
        if meaning is None:
            unknown.append(word)
        else:
            result[word] = meaning
    if unknown:
        lines = lines or {}
        # In the order the file first uses them, where it has lines.
        unknown.sort(key=lambda word: min(lines.get(word) or [0]))
        raise MapError(_unknown_words(unknown, allowed, lines, places or {}))
    return result


def _on_lines(numbers: Sequence[int]) -> str:
    if not numbers:
        return ""
    shown = ", ".join(str(n) for n in numbers[:5])
    more = f" and {len(numbers) - 5} more" if len(numbers) > 5 else ""
    return f" ({'line' if len(numbers) == 1 else 'lines'} {shown}{more})"


def _unknown_words(unknown: Sequence[str], allowed: frozenset[str],
                   lines: Mapping[str, Sequence[int]], places: Mapping[str, str]) -> str:
    terrains = ", ".join(sorted(allowed))

    def where(word: str) -> str:
        return f" ({places[word]})" if word in places else _on_lines(lines.get(word, ()))

    if len(unknown) == 1:
        [word] = unknown
        return (f"the map uses the word {word!r}{where(word)}, which Trek "
                f"cannot turn into a terrain here; say what it is with --terrain {word}=TERRAIN "
                f"(one of {terrains})")
    named = [f"{word!r}{where(word)}" for word in unknown]
    options = " ".join(f"--terrain {word}=TERRAIN" for word in unknown)
    return (f"the map uses {len(unknown)} words Trek cannot turn into a terrain here: "
            f"{', '.join(named[:-1])} and {named[-1]}; say what each is with {options} "
            f"(one of {terrains})")
