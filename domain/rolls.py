"""A roll as an event records it: who rolled, the dice, the target and the outcome. Apart from
the dice (`domain.dice`) so that an event that rolls nothing, and a command that records one,
define no roll."""

from pydantic import BaseModel, ConfigDict


class Roll(BaseModel):
    """One check as it happened: who rolled, the dice, the target and the outcome."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    label: str
    by: str | None = None
    total: int
    dice: tuple[int, ...] | None = None
    target: int
    success: bool
    margin: int

    @property
    def points(self) -> int:
        """Points of success (a spot-on roll still counts one) or of failure."""
        if self.success:
            return max(1, self.margin)
        return -self.margin
