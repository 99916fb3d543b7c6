"""A cell as encounter events keep it: a `Square` in the code, {"x": X, "y": Y} in JSON."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer

from domain.geometry import Square


def _cell_in(value: Any) -> Any:
    """A cell as stored: {"x": X, "y": Y} (encounters), or [X, Y] as older events kept it."""
    if isinstance(value, dict):
        return (value.get("x"), value.get("y"))
    return value


# A cell in an encounter event: a Square in the code, {"x": X, "y": Y} in JSON (RULES §12.5).
Cell = Annotated[
    Square,
    BeforeValidator(_cell_in),
    PlainSerializer(lambda cell: {"x": cell[0], "y": cell[1]}, return_type=dict[str, int]),
]
