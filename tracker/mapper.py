"""Stores pydantic events as canonical JSON and reads them back, upcasting older versions."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast
from uuid import UUID

from eventsourcing.persistence import EventStore, Mapper, StoredEvent, Transcoder, Transcoding
from pydantic import BaseModel, ValidationError

from domain.errors import NewerStore
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
    if version > target:
        raise NewerStore(
            f"the store was written by a newer Trek (event {cls.__name__} version {version}; "
            f"this release reads up to version {target}); upgrade Trek to open it")
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
        cls = self.topics.resolve(stored_event.topic, stored_event.originator_id,
                                  self.ruleset_of)
        return decode_event(cls, stored_event.state, stored_event.originator_id,
                            stored_event.originator_version, stored_event.topic)


def decode_event(cls: type[BaseModel], data: bytes, originator_id: UUID | str,
                 version: int, topic: str) -> Any:
    """The event a stored row holds; its chain hash is taken from the row as stored."""
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
        state = json.loads(data)
        stored_version = int(state.get("class_version", 1))
        state = upcast(cls, state)
        state["originator_id"] = originator_id
        state["originator_version"] = version
        try:
            obj = cls.model_validate(state)
        except ValidationError as error:
            unknown = sorted(str(e["loc"][0]) for e in error.errors()
                             if e["type"] == "extra_forbidden" and e["loc"])
            # Fields unknown at this release's own version: a later release added them.
            if unknown and stored_version >= int(getattr(cls, "class_version", 1)):
                raise NewerStore(
                    f"the store was written by a newer Trek (its event {version}, a "
                    f"{cls.__name__}, has {', '.join(unknown)}, which this release does not "
                    "know); upgrade Trek to open it") from None
            raise
    if isinstance(obj, TrekEvent):
        # The chain links the row as stored, which an upcast event no longer reproduces.
        obj.remember_stored_row(topic, data)
    return obj


class RowDecoder:
    """Stored rows -> events, for code that reads many rows in a row (a rebuild, a catch-up).

    The same as `PydanticMapper.to_domain_event` row for row, with what it works out per row
    worked out once: the class of each topic, and each campaign's id. An event's stored JSON
    is validated as it is (pydantic parses the bytes itself, faster than `json.loads` alone)
    and its place in the log set from the row's columns afterwards, as the mapper's
    `decode_event` would have them. Anything out of the ordinary (a release 0.1 topic, a class
    to upcast, a row pydantic refuses, an id that is no UUID) goes through the mapper itself,
    which says what is wrong.
    """

    def __init__(self, mapper: PydanticMapper) -> None:
        self.mapper = mapper
        # topic -> the validator of its class, when it is a Trek event to decode on the fast
        # path (else None).
        self._classes: dict[str, Any] = {}
        # A campaign's id as the row holds it -> as a UUID.
        self._ids: dict[Any, UUID] = {}

    def _class_of(self, topic: str) -> Any:
        """The validator of a known topic's rows, remembered: None for rows to decode through
        the mapper (a class to upcast, or no Trek event)."""
        cls = self.mapper.topics.by_topic[topic]
        found: Any = None
        if getattr(cls, "class_version", 1) == 1 and issubclass(cls, TrekEvent):
            if not cls.__pydantic_complete__:
                # Event classes build their schema on first use; built here, once, so the
                # validator is the real one when it is called directly.
                cls.model_rebuild()
            found = cls.__pydantic_validator__
        self._classes[topic] = found
        return found

    def _mapped(self, originator: Any, version: Any, topic: str, data: Any) -> Any:
        """The mapper's own decoding of a row (it says what is wrong with one it refuses)."""
        row: Any = _Row(originator, version, topic, data)
        return self.mapper.to_domain_event(row)

    def __call__(self, row: Any) -> Any:
        return self.fields(row.originator_id, row.originator_version, row.topic, row.state)

    def fields(self, originator: Any, version: int, topic: str, data: Any) -> Any:
        """The event of one stored row, given as its fields."""
        try:
            validator = self._classes[topic]
        except KeyError:
            if topic not in self.mapper.topics.by_topic:
                # A topic not known yet: the mapper resolves it, which adds a deferred
                # ruleset's events when its first is met. Only a topic known after that is
                # remembered; until then each row takes the mapper's path.
                event = self._mapped(originator, version, topic, data)
                if topic in self.mapper.topics.by_topic:
                    self._class_of(topic)
                return event
            validator = self._class_of(topic)
        uuid = self._ids.get(originator)
        if uuid is None:
            try:
                uuid = originator if type(originator) is UUID else UUID(str(originator))
            except ValueError:
                uuid = None
            else:
                self._ids[originator] = uuid
        if validator is None or uuid is None or type(data) is not bytes or type(version) is not int:
            return self._mapped(originator, version, topic, data)
        try:
            event = validator.validate_json(data)
        except ValidationError:
            return self._mapped(originator, version, topic, data)
        return _placed(event, uuid, version, topic, data)

    def event(self, originator: Any, version: int, topic: str, data: Any) -> TrekEvent | None:
        """The Trek event of one stored row, given as its fields (None for another record):
        `fields`, its usual path written out, since a rebuild calls this once per row."""
        validator = self._classes.get(topic)
        uuid = self._ids.get(originator)
        if (validator is None or uuid is None or type(data) is not bytes
                or type(version) is not int):
            found = self.fields(originator, version, topic, data)
            return found if isinstance(found, TrekEvent) else None
        try:
            event: TrekEvent = validator.validate_json(data)
        except ValidationError:
            found = self._mapped(originator, version, topic, data)
            return found if isinstance(found, TrekEvent) else None
        return _placed(event, uuid, version, topic, data)


_PLACE = ("originator_id", "originator_version")
# The slot `TrekEvent.remember_stored_row` sets, set directly on an event just decoded.
_set_stored_row = TrekEvent._stored_row.__set__  # type: ignore[attr-defined]


def _placed(event: TrekEvent, uuid: UUID, version: int, topic: str, data: bytes) -> TrekEvent:
    """`event` just decoded from its row, placed by the row's columns, as the ids the mapper
    splices in would (they win over any the stored JSON holds), and remembering the row as
    stored (`remember_stored_row`): the chain hashes the row as stored."""
    fields = event.__dict__
    fields["originator_id"] = uuid
    fields["originator_version"] = version
    event.__pydantic_fields_set__.update(_PLACE)
    _set_stored_row(event, (topic, data))
    return event


def page_events(store: EventStore[UUID], originator_id: UUID, *, gt: int | None = None,
                lte: int | None = None, page: int = 500) -> Iterator[TrekEvent]:
    """One aggregate's events after `gt` up to `lte`, in order, read a page at a time.

    Only one page is held at once, so walking a long campaign keeps memory flat. The rows are
    read from the recorder and decoded as a rebuild decodes them (`RowDecoder`).
    """
    decode = RowDecoder(cast(PydanticMapper, store.mapper))
    select = row_pages(store.recorder, originator_id)
    after = gt
    while True:
        rows = select(after, lte, page)
        for row in rows:
            event = decode(row)
            if isinstance(event, TrekEvent):
                yield event
        if len(rows) < page:
            return
        after = rows[-1].originator_version


class _Row:
    """One stored event of a known aggregate, as `RowDecoder` reads it."""

    __slots__ = ("originator_id", "originator_version", "state", "topic")

    def __init__(self, originator_id: UUID, version: int, topic: str, state: bytes) -> None:
        self.originator_id = originator_id
        self.originator_version = version
        self.topic = topic
        self.state = state


Select = Callable[[int | None, int | None, int], Sequence[Any]]

# SQLite's largest integer: no version is past it.
_NO_END = 2**63 - 1


def row_pages(recorder: Any, originator_id: UUID) -> Select:
    """How to read a page of one aggregate's rows, `select(gt, lte, limit)`: the recorder's own
    `select_events`, or, on SQLite, the same query without turning each row's stored id back
    into a UUID (every row of the page has the id asked for). Every reader of one campaign's
    rows uses it: undo and redo, the log, the chain walk."""

    def recorded(gt: int | None, lte: int | None, limit: int) -> Sequence[Any]:
        return cast(Sequence[Any], recorder.select_events(originator_id, gt=gt, lte=lte,
                                                          limit=limit))

    sqlite = sys.modules.get("eventsourcing.sqlite")
    table = getattr(recorder, "events_table_name", None)
    if (sqlite is None or not isinstance(originator_id, UUID)
            or not isinstance(recorder, sqlite.SQLiteAggregateRecorder)
            or not isinstance(table, str) or not table.isidentifier()):
        return recorded
    statement = (f"SELECT originator_version, topic, state FROM {table} "
                 "WHERE originator_id = ? AND originator_version > ? AND originator_version <= ? "
                 "ORDER BY originator_version LIMIT ?")
    key = originator_id.hex

    shared = getattr(recorder, "views", None)
    if shared is not None:
        # The read models' connection, which the event store reads on (tracker/sqlite_recorder.py):
        # one statement, no transaction round it.
        def on_shared(gt: int | None, lte: int | None, limit: int) -> Sequence[Any]:
            rows = shared.conn.execute(statement, (key, -1 if gt is None else gt,
                                                   _NO_END if lte is None else lte, limit))
            return [_Row(originator_id, *row) for row in rows.fetchall()]

        return on_shared

    def direct(gt: int | None, lte: int | None, limit: int) -> Sequence[Any]:
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement, (key, -1 if gt is None else gt,
                                       _NO_END if lte is None else lte, limit))
            return [_Row(originator_id, *row) for row in cursor.fetchall()]

    return direct
