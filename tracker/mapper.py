"""Stores pydantic events as canonical JSON and reads them back, upcasting older versions."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any, cast
from uuid import UUID

from eventsourcing.persistence import EventStore, Mapper, StoredEvent, Transcoder, Transcoding
from pydantic import BaseModel, ValidationError

from domain.events import TrekEvent, canonical_bytes
from tracker.topics import Topics, topic_of


class CanonicalJSONTranscoder(Transcoder):
    """Plain JSON with sorted keys: the same event always has the same bytes (and hash)."""

    def encode(self, obj: Any) -> bytes:
        return canonical_bytes(obj)

    def decode(self, data: bytes) -> Any:
        return json.loads(data)

    def register(self, transcoding: Transcoding) -> None:
        raise TypeError("Trek events are pydantic models; they need no transcodings")


def upcast(cls: type[BaseModel], state: dict[str, Any]) -> dict[str, Any]:
    """Bring a stored state from its class_version up to the class's current one."""
    target = int(getattr(cls, "class_version", 1))
    version = int(state.pop("class_version", 1))
    while version < target:
        getattr(cls, f"upcast_v{version}_v{version + 1}")(state)
        version += 1
    return state


class PydanticMapper(Mapper[UUID]):
    """The eventsourcing mapper for Trek's frozen pydantic events and snapshots.

    Topics resolve through `topics` only; `ruleset_of` names a campaign's ruleset for the
    release 0.1 topics that now name one class per ruleset.
    """

    def __init__(self, transcoder: Transcoder, topics: Topics,
                 ruleset_of: Callable[[UUID], str | None]) -> None:
        super().__init__(transcoder=transcoder)
        self.topics = topics
        self.ruleset_of = ruleset_of

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        model = cast(BaseModel, domain_event)
        if isinstance(model, TrekEvent):
            state = model.stored_state()
        else:
            state = model.model_dump(
                mode="json", exclude={"originator_id", "originator_version"}
            )
        return StoredEvent(
            originator_id=model.originator_id,  # type: ignore[attr-defined]
            originator_version=model.originator_version,  # type: ignore[attr-defined]
            topic=topic_of(type(model)),
            state=self.transcoder.encode(state),
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        originator = stored_event.originator_id
        cls = self.topics.resolve(stored_event.topic,
                                  originator if isinstance(originator, UUID) else UUID(originator),
                                  self.ruleset_of)
        return decode_event(cls, stored_event.state, stored_event.originator_id,
                            stored_event.originator_version)


def decode_event(cls: type[BaseModel], data: bytes, originator_id: UUID | str,
                 version: int) -> Any:
    data = bytes(data)
    obj: Any = None
    if getattr(cls, "class_version", 1) == 1 and data[-1:] == b"}" and data[-2:-1] != b"{":
        # Nothing to upcast: pydantic parses the stored bytes itself, the ids spliced in at the
        # end (the last of two equal keys wins, as the dict path's assignment does), in about
        # 60% of the time json.loads and then validating the dict takes.
        tail = b',"originator_id":"%s","originator_version":%d}' % (
            str(originator_id).encode(), version)
        try:
            obj = cls.model_validate_json(data[:-1] + tail)
        except ValidationError:
            obj = None  # e.g. a class_version key: the general path below says what is wrong
    if obj is None:
        state = upcast(cls, json.loads(data))
        state["originator_id"] = originator_id
        state["originator_version"] = version
        obj = cls.model_validate(state)
    if isinstance(obj, TrekEvent):
        # The chain links stored bytes, which an upcast event no longer reproduces.
        obj.remember_stored_hash(hashlib.sha256(data).hexdigest())
    return obj


def page_events(store: EventStore[UUID], originator_id: UUID, *, gt: int | None = None,
                lte: int | None = None, page: int = 500) -> Iterator[TrekEvent]:
    """One aggregate's events after `gt` up to `lte`, in order, read a page at a time.

    Only one page is held at once, so walking a long campaign keeps memory flat.
    """
    after = gt
    while True:
        events = list(store.get(originator_id, gt=after, lte=lte, limit=page))
        for event in events:
            if isinstance(event, TrekEvent):
                yield event
        if len(events) < page:
            return
        after = events[-1].originator_version
