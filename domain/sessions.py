"""Play sessions: a session opens and closes; every event recorded between is stamped with it.

Kept apart from `domain/events.py` so that a campaign whose log holds no session loads none of
them: the log loads them when it first meets one (`cli/registry.py`), and `trek session` when
it records one. They are stored under `domain.events`' topics, as every release before stored
them (`domain.events.topic_of`).
"""

from typing import ClassVar

from domain.events import TrekEvent
from domain.values import Text


class SessionStarted(TrekEvent):
    undoable: ClassVar[bool] = False
    changes_session: ClassVar[bool] = True

    number: int
    title: Text | None = None

    def sessions_after(self, session: int | None, sessions: int) -> tuple[int | None, int]:
        return self.number, self.number


class SessionEnded(TrekEvent):
    undoable: ClassVar[bool] = False
    changes_session: ClassVar[bool] = True

    number: int

    def sessions_after(self, session: int | None, sessions: int) -> tuple[int | None, int]:
        return None, sessions


EVENTS: tuple[type[TrekEvent], ...] = (SessionStarted, SessionEnded)
