"""Which Trek terrain word a source word (a Tiled `terrain` property, a Text Mapper type)
becomes, given the words the target map may use."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

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
      "town", "village", "city", "settlement", "ruins", "empty", "clear", "coast"), ("open",))
_add(("forest", "forests", "woods", "wood", "trees", "tree", "jungle", "fir-forest",
      "pine-forest", "bush", "bushes", "scrub", "brush", "undergrowth", "thicket"),
     _PASSABLE_SLOW)
_add(("hills", "hill", "rough", "badlands", "dunes", "broken", "rocks", "scree"),
     ("rough", "difficult", "treacherous", "open"))
_add(("swamp", "swamps", "marsh", "marshes", "bog", "fen", "mud", "difficult", "rubble",
      "debris"), ("difficult", "rough", "treacherous", "hazard", "water"))
_add(("ice", "snow", "glacier", "treacherous"), ("treacherous", "difficult", "rough", "hazard"))
_add(("mountain", "mountains", "peak", "peaks", "cliff", "cliffs", "feature", "chasm"),
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
                     overrides: Mapping[str, str]) -> dict[str, str]:
    """The Trek word for every source word, --terrain first; an unknown word is refused."""
    check_overrides(overrides, allowed)
    folded = _folded(overrides)
    result: dict[str, str] = {}
    for word in words:
        meaning = folded.get(word.casefold()) or built_in(word, allowed)
        if meaning is None:
            raise MapError(f"the map uses the word {word!r}, which Trek cannot turn into a "
                           f"terrain here; say what it is with --terrain {word}=TERRAIN "
                           f"(one of {', '.join(sorted(allowed))})")
        result[word] = meaning
    return result
