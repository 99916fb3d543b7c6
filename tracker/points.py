"""Points in a campaign's history: right after event SEQ, the end of day N, or now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

POINT_HELP = "SEQ (right after that event), day:N (the end of day N) or now"


@dataclass(frozen=True)
class Point:
    """A point in one campaign's history; `campaign` None means the campaign in use."""

    kind: Literal["seq", "day", "now"]
    number: int = 0
    campaign: str | None = None

    @classmethod
    def parse(cls, text: str, *, with_campaign: bool = False) -> Point:
        """Read SEQ, day:N or now (and SLUG@ before it when `with_campaign`).

        Raises ValueError with a sentence saying what is allowed.
        """
        campaign: str | None = None
        rest = text.strip()
        if with_campaign and "@" in rest:
            campaign, _, rest = rest.partition("@")
            campaign = campaign.strip()
            if not campaign:
                raise ValueError(f"{text!r} names no campaign before the @")
        cleaned = rest.strip().lower()
        if cleaned == "now":
            return cls("now", campaign=campaign)
        kind: Literal["seq", "day"] = "seq"
        number = cleaned
        if cleaned.startswith("day:"):
            kind, number = "day", cleaned[4:]
        if not (number.isascii() and number.isdigit()):
            allowed = f"[SLUG@]{POINT_HELP}" if with_campaign else POINT_HELP
            raise ValueError(f"{text!r} is not a point in a campaign; give {allowed}")
        value = int(number)
        if value > 2**62:
            raise ValueError(f"{text!r} is beyond the end of any campaign's log")
        return cls(kind, value, campaign)

    def __str__(self) -> str:
        where = {"seq": str(self.number), "day": f"day:{self.number}", "now": "now"}[self.kind]
        return f"{self.campaign}@{where}" if self.campaign else where
