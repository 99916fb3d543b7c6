"""The Trek application: one door for every write (`handle`), the store's opening, replay and
checks, over the eventsourcing library's store; the reads are in `tracker/queries.py`."""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from functools import cached_property, singledispatch
from typing import TYPE_CHECKING, Any, cast

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import (
    IntegrityError,
    RecordConflictError,
)

from domain.actors import Actor
from domain.campaign import Campaign, CampaignSnapshot, Stamp, campaign_id, slugify
from domain.errors import NewerStore, NotFound, RuleViolation, TamperedLog, TrackerError
from domain.events import EventsCancelled, TrekEvent
from domain.geometry import Square
from domain.links import link_hash, stored_bytes, stored_link
from domain.maps import GameMap
from domain.ruleset import (
    Command,
    Registry,
)
from domain.state import MAIN_PARTY, Game
from domain.values import check_name
from projections import readmodels
from projections.db import Database, SQLiteDatabase, mark_schema
from projections.projector import ChainBroken, Progress, Projector
from projections.stored_status import IN_USE_KEY
from projections.views import EncounterDocument, encounter_of, event_document
from tracker.application import TrekApplication
from tracker.mapper import page_events, row_pages
from tracker.opening import MemoryStores, open_store, opening_errors
from tracker.reading import NAMED_BY, StoreReader
from tracker.reversals import index_reversals
from tracker.stores import (
    Location,
    StoreError,
    StoreKind,
    damaged_store,
    sqlite_damage,
)
from tracker.topics import UnknownTopic
from tracker.turns import campaign_turn

if TYPE_CHECKING:
    from domain.commands.history import Redo, Undo
    from tracker.chain_reader import ChainReader, RebuildLinks
    from tracker.mapformats.picture import Picture
    from tracker.queries import Queries

# Loading a campaign reads its latest snapshot and the events since (at most this many), so a
# command costs the same on day 3,000 as on day 3. A 100-event campaign is snapshotted too.
SNAPSHOT_EVERY = 100
SAVE_ATTEMPTS = 8
# A rebuild of at least this many stored events walks the hash chains in a process of its own,
# beside the fold, where a second processor is free to (`ParallelLinks`). Measured whole: at
# 5,000 events starting that process costs what the walk it spares does; at 20,000, 0.90.
PARALLEL_CHAIN_FROM = 20_000
# How many earlier stored states `_game_before` tries before folding a campaign from its start.
GAME_BEFORE_STEPS = 8

Documents = list[dict[str, Any]]
INIT_HAS_NO_PREVIEW = ("init creates a campaign (and its store, if need be) rather than "
                       "recording an event in one, so it has no preview; run it without "
                       "--preview")


def _processors() -> int:
    """How many processors this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def party_key(slug: str) -> str:
    """The store setting naming a campaign's party in use."""
    return readmodels.PARTY_KEY + slug


class _FoldFailed(Exception):
    """Folding the read models in the append's transaction failed (the cause says why)."""


class ConcurrentChange(TrackerError):
    """Another GM recorded into the campaign at the same moment, again and again."""


def recorded_but(events: list[TrekEvent], what: str) -> str:
    """The true sentence for a failure after `events` were appended."""
    named = ", ".join(f"event {e.seq} ({type(e).__name__})" for e in events)
    return (f"{named} {'was' if len(events) == 1 else 'were'} recorded, but {what}; "
            "it stands in the log and the next command finishes the rest, so do not run "
            "this command again")


def recorded_but_warning(events: list[TrekEvent], what: str) -> str:
    """The warning of a command that recorded `events` and then could not do `what`: it
    succeeded, and running it again would record them twice."""
    named = ", ".join(f"event {e.seq} ({type(e).__name__})" for e in events)
    return f"{named} {'was' if len(events) == 1 else 'were'} recorded, but {what}"


def default_gm() -> str:
    """The GM a command records for when none is given: the system's user."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "gm"


def checked_gm(gm: str | None) -> str:
    """The name stamped on recorded events (`--gm`, TREK_GM, else the OS user), with the checks
    every name a GM types gets: printable, one line, at most 40 characters, no `=`."""
    name = gm if gm is not None else default_gm()
    try:
        return check_name(name, "GM name")
    except RuleViolation as error:
        if gm is None:
            raise RuleViolation(f"{error} (the OS user's name); give another with --gm NAME "
                                "or TREK_GM") from None
        raise


class Trek:
    """Every use case of the tracker; takes and returns plain values and read-model documents."""

    def __init__(self, location: Location, app: TrekApplication, views: Database, *,
                 gm: str, writable: bool, rulesets: Registry, preview: bool = False) -> None:
        self.location = location
        # A previewing Trek decides each event as recording would and returns it unsaved.
        self.preview = preview
        self.rulesets = rulesets
        self.app = app
        self.views = views
        self.gm = gm
        self.writable = writable
        self.projector = Projector(views, app.recorder, app.decode, rulesets)
        # The reads of the store that recording and the queries share.
        self.reader = StoreReader(location, app, views, self.projector, writable=writable)
        # Every event this process appended, so a failure after an append is told truthfully.
        self.appended: list[TrekEvent] = []
        # Whether the read models still lack events the last save appended (`_finish`).
        self.unfolded = False
        # Each campaign's party in use as the running recording command's `resolve` read them
        # (None: no recording command is running; the reads keep nothing between commands).
        self._parties_read: dict[str, str | None] | None = None
        # Each campaign's chain head as that `resolve` read it, for the command's first attempt.
        self._heads_read: dict[str, tuple[int, str] | None] = {}
        # What a command that succeeded should still say on stderr, a sentence each.
        self.warnings: list[str] = []
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        # A previewing Trek's campaign as the last previewed event left it (never saved).
        self.previewed: Campaign | None = None
        # The campaign the last recording use case loaded: the --campaign it was given (None:
        # none), its slug and its ruleset, so what it prints need not look them up again.
        self.last_recorded: tuple[str | None, str, str] | None = None

    @cached_property
    def queries(self) -> Queries:
        """Every read: status, log, route, time travel, diff, audit, recap, the battle map
        (loaded when one is first asked for: a recording command asks for none)."""
        from tracker.queries import Queries

        return Queries(self, self.reader)

    # -- opening and closing ------------------------------------------------------------------

    @classmethod
    def open(cls, db: str, *, rulesets: Registry, create: bool = False,
             writable: bool = True, gm: str | None = None,
             memory: MemoryStores | None = None, preview: bool = False) -> Trek:
        """Open the store at `db`; `create` allows making a new one (only `init` does).

        With `preview`, every recording use case returns the event it would record and stores
        nothing; the store is opened read-only, so nothing else is written either.

        A `memory:` store lives in `memory` (a new holder when none is given, so it lasts as
        long as this Trek).
        """
        # Checked before anything is opened: a refused name leaves no store behind.
        gm = checked_gm(gm)
        location = Location.parse(db)
        writable = writable and not preview
        create = create and not preview
        opened = open_store(location, rulesets, create=create, writable=writable,
                            memory=memory if memory is not None else MemoryStores())
        trek = cls(location, opened.app, opened.views, gm=gm,
                   writable=writable, rulesets=rulesets, preview=preview)
        # A store marked as in this release's schema has every table and index already.
        if writable and not (isinstance(opened.views, SQLiteDatabase) and opened.views.current):
            with opening_errors(location, create=create):
                if opened.upgrade and trek.projector.upgrade():
                    # An earlier release's read models were dropped: fold the log into this
                    # release's tables now, so the command finds its campaigns.
                    trek.catch_up()
                # Loading a campaign reads its undos and redos through this index (a store of
                # an earlier release gets it on its first command that may record).
                index_reversals(opened.app.recorder, opened.views)
                if opened.unmarked:
                    # Every table and index is this release's now: later opens skip the checks.
                    mark_schema(opened.views)
                    assert isinstance(opened.views, SQLiteDatabase)
                    opened.views.current = True
        return trek

    def close(self) -> None:
        if self.location.kind is StoreKind.MEMORY:
            return
        self.views.close()
        self.app.close()

    def __enter__(self) -> Trek:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- campaigns ----------------------------------------------------------------------------

    def campaigns(self) -> list[dict[str, Any]]:
        return self.reader.campaigns()

    def resolve(self, slug: str | None) -> str:
        """The campaign to act on: the one named, else the one the store says plain commands
        use (`trek campaigns use`), else the only one in the store."""
        if slug is not None:
            return slug
        if self._parties_read is not None and self.projector.current_schema:
            # A recording command: the campaigns, what is in use and each one's chain head in
            # one statement, kept for this command.
            choices = readmodels.campaigns_and_choices(self.views)
            campaigns, in_use = choices.campaigns, choices.in_use
            self._parties_read.update(choices.parties)
            self._heads_read = choices.heads
        else:
            campaigns, in_use = self.campaigns(), self.campaign_in_use()
        known = [c["slug"] for c in campaigns]
        if not known:
            raise NotFound("the store holds no campaign yet; create one with `trek init NAME`")
        if in_use in known:
            return str(in_use)
        if len(known) > 1:
            raise RuleViolation(
                f"the store holds {len(known)} campaigns ({', '.join(known)}); "
                "choose one with --campaign SLUG, or make one the default with "
                "`trek campaigns use SLUG`"
            )
        return str(known[0])

    @contextmanager
    def picture_kept(self, picture: Picture | None) -> Iterator[None]:
        """Keep a map's picture in the store for the event recorded inside (its bytes once per
        hash, in their own table); taken out again if that fails and no event had named it."""
        if picture is None or self.preview:
            yield
            return
        from tracker import pictures

        self._require_writable()
        with self.reader.store_errors(), self.views.transaction() as cursor:
            added = pictures.put(cursor, picture.sha256, picture.media_type, picture.data)
        try:
            yield
        except BaseException:
            if added:
                with self.reader.store_errors(), self.views.transaction() as cursor:
                    pictures.remove(cursor, picture.sha256)
            raise

    def campaign_in_use(self) -> str | None:
        """The campaign plain commands use, as `trek campaigns use` set it (None: not set).

        Kept in the store's own settings (the `trek_meta` table beside its format mark): not
        an event of any campaign, and left as it is by a rebuild of the read models."""
        return readmodels.setting(self.views, IN_USE_KEY)

    def use_campaign(self, slug: str) -> dict[str, Any]:
        """Make `slug` the campaign that commands naming none use; records no event."""
        self._require_writable()
        self.catch_up()
        known = [c["slug"] for c in self.campaigns()]
        if slug not in known:
            raise self.reader.no_campaign(slug)
        previous = self.campaign_in_use()
        with self.reader.store_errors(), self.views.transaction() as cursor:
            readmodels.save_setting(cursor, IN_USE_KEY, slug)
        return {"campaign": slug, "previous": previous if previous in known else None}

    # -- parties (RULES.md §15) ----------------------------------------------------------------

    def party_in_use(self, slug: str) -> str | None:
        """The party commands act on when they name none, as `trek party use` set it (None:
        not set). A store setting like the campaign in use: not an event."""
        return readmodels.setting(self.views, party_key(slug))

    def use_party(self, slug: str | None, name: str) -> dict[str, Any]:
        """Make `name` the party that commands naming none act on; records no event."""
        self._require_writable()
        self.catch_up()
        campaign = self.resolve(slug)
        game = self._load(campaign).game
        if name not in game.party_names():
            raise NotFound(f"there is no party called {name!r}; the campaign has "
                           f"{', '.join(game.party_names())}")
        previous = self.party_in_use(campaign)
        with self.reader.store_errors(), self.views.transaction() as cursor:
            readmodels.save_setting(cursor, party_key(campaign), name)
        return {"campaign": campaign, "party": name, "previous": previous}

    def acting_party(self, slug: str, game: Game, party: str | None) -> str:
        """The party a command acts on: the one named (refused when there is none so
        called), else the party in use, else `main`, else the first by name."""
        names = game.party_names()
        if party is not None:
            if party not in names:
                raise NotFound(f"there is no party called {party!r}; the campaign has "
                               f"{', '.join(names)}")
            return party
        parties = self._parties_read
        # The party in use as `resolve` read it for this command, else read now.
        in_use = (parties[slug] if parties is not None and slug in parties
                  else self.party_in_use(slug))
        if in_use in names:
            return str(in_use)
        return MAIN_PARTY if MAIN_PARTY in names else names[0]

    def _load(self, slug: str) -> Campaign:
        try:
            campaign = self.reader.get(campaign_id(slug))
        except AggregateNotFoundError:
            raise self.reader.no_campaign(slug) from None
        return campaign.play_under(self.rulesets)

    def _check_head(self, campaign: Campaign, head: tuple[int, str] | None) -> None:
        """Refuse to record on a log whose newest events were deleted or edited, whose kept
        chain head was deleted, or whose event at the newest snapshot was changed."""
        last = campaign.version
        if head is None:
            # No head kept for a campaign the read models have folded: its row was deleted,
            # which must never pass for a fresh start (the next append would bless an edit).
            if not self.projector.head_missing(str(campaign.id)):
                return self._check_snapshot_link(campaign)
            from tracker.chain_reader import HEAD_MISSING

            seq, damage = last, HEAD_MISSING
        else:
            seq, digest = head
            if seq > last:
                what = (f"event {seq} was" if seq == last + 1
                        else f"events {last + 1} to {seq} were")
                seq, damage = last + 1, f"{what} recorded and cannot be found now"
            elif seq == last and digest != campaign.last_hash:
                damage = f"event {seq} was changed after it was recorded"
            else:
                return self._check_snapshot_link(campaign)
        from tracker.chain import damaged

        raise TamperedLog(damaged(campaign.slug, seq, damage, recording=True))

    def _check_snapshot_link(self, campaign: Campaign) -> None:
        """Refuse to record when the event a campaign's newest snapshot was taken at no longer
        hashes as the snapshot recorded (the events after it were checked as they were
        loaded): one row read, whatever the campaign's length."""
        taken = campaign.snapshot_head
        if taken is None:
            return
        version, recorded = taken
        with self.reader.store_errors():
            rows = row_pages(self.app.recorder, campaign.id)(version - 1, version, 1)
        if not rows:
            damage = f"event {version} is missing from the store"
        else:
            data = stored_bytes(rows[0].state)
            now = link_hash(stored_link(data)[1], str(campaign.id), version, rows[0].topic,
                            data)
            if now == recorded:
                return
            from tracker.chain import short

            damage = (f"event {version} hashes to {short(now)}, but the snapshot taken at it "
                      f"recorded {short(recorded)}: event {version} was changed after it was "
                      "recorded")
        from tracker.chain import damaged

        raise TamperedLog(damaged(campaign.slug, version, damage, recording=True))

    def _load_to_record(self, name: str) -> Campaign:
        """The campaign as `_load` gives it; a log that cannot be loaded because it was
        damaged (an edited link, an unknown or changed event kind, a gap) is refused with the
        damage the chain walk names, never with what the damage made the decoder say."""
        try:
            return self._load(name)
        except (TamperedLog, NewerStore, UnknownTopic, ValueError, LookupError, NotFound):
            # NotFound: a campaign whose every event was deleted still has its kept head.
            found = self._chain_reader().check(campaign_id(name))
            if found.intact or found.broken_at is None or found.problem is None:
                raise
            from tracker.chain import damaged

            raise TamperedLog(damaged(name, found.broken_at, found.problem, recording=True)
                              ) from None

    def _stamp(self, actor: Actor | None = None) -> Stamp:
        return Stamp(gm=self.gm, at=self.clock(), actor=actor)

    # -- recording ----------------------------------------------------------------------------

    def _save(self, campaign: Campaign, events: list[TrekEvent] | None = None) -> None:
        """Append the campaign's pending events, or `events` (its newest, folded into it
        already), in one transaction."""
        pending = list(campaign.pending_events) if events is None else events
        before = campaign.version - len(pending)
        saved: list[Any] = [campaign] if events is None else pending
        self.unfolded = True
        if self.app.folds_with_append:
            # The events and the read models they change commit in one transaction.
            try:
                self.app.save(*saved, then=self._fold_appended)
            except _FoldFailed:
                # The fold failed and took the append back with it: the events are appended
                # on their own, and `_finish` repairs the read models as after any failed
                # update (the command still succeeds).
                self.app.save(*pending)
        else:
            self.app.save(*saved)
        self.appended.extend(pending)
        # A snapshot each time the version reaches (or, saving several events, passes) the
        # next multiple of SNAPSHOT_EVERY. It only speeds up loading: if it cannot be
        # written, the event still stands and a later command takes the snapshot.
        if campaign.version // SNAPSHOT_EVERY > before // SNAPSHOT_EVERY:
            assert self.app.snapshots is not None
            try:
                self.app.snapshots.put([CampaignSnapshot.take(campaign)])
            except Exception as error:
                self.warnings.append(recorded_but_warning(
                    pending, f"its snapshot could not be written ({self._describe(error)}); "
                    "loading the campaign reads more events until its next snapshot"))

    def _fold_appended(self, cursor: Any, appended: Sequence[tuple[Any, ...]]) -> None:
        """Fold the events just appended (their rows as stored) into the read models, in the
        append's transaction."""
        try:
            folded = self.projector.fold_appended(cursor, appended)
        except Exception as error:
            raise _FoldFailed from error
        # A full batch leaves more behind it (read models far behind the log): `_finish`.
        self.unfolded = folded >= self.projector.batch

    def _describe(self, error: BaseException) -> str:
        return self.location.scrub(f"{type(error).__name__}: {error}")

    def _finish(self, events: list[TrekEvent]) -> None:
        """Bring the read models up to the events just appended.

        They are a copy of the log, and the events stand whatever happens to them: when the
        update fails (a damaged tracking row, say), the read models are rebuilt from the log
        (its chains checked) at once, and a warning (`warnings`) says what happened; the
        command still succeeds. Should the rebuild fail too, every read folds in what they
        lack, and the next command that records tries again.
        """
        try:
            self.catch_up()
            return
        except Exception as error:
            failed = f"the read models could not be brought up to date ({self._describe(error)})"
        from tracker.chain_reader import RebuildLinks

        try:
            self._rebuild(None, RebuildLinks(self._chain_reader()))
        except Exception:
            self.warnings.append(recorded_but_warning(
                events, f"{failed}; reads fold in what they lack, and the next command that "
                "records repairs them"))
            return
        self.warnings.append(f"{failed}, so they were repaired: rebuilt from the log")

    def _record(self, slug: str | None, action: Callable[[Campaign], TrekEvent], *,
               preview: bool = False, actor: Actor | None = None,
               party: str | None = None) -> Documents:
        """Load the campaign, let `action` record one event for `actor` (None: this Trek's
        GM) on party `party` (None: the party in use), save it, and catch up the views.

        Two GMs recording at once clash on the event's version; the loser loads the campaign
        again and decides afresh, so no event is lost or recorded twice. A previewing Trek
        returns the decided event (its seq the one it would get) and saves nothing.
        """
        preview = preview or self.preview
        self._require_writable(preview)
        self._parties_read, self._heads_read = {}, {}
        try:
            return self._record_in(slug, action, preview, actor, party)
        finally:
            # A long-lived process (the shell, a server) reads the settings again next time.
            self._parties_read, self._heads_read = None, {}

    def _record_in(self, slug: str | None, action: Callable[[Campaign], TrekEvent],
                   preview: bool, actor: Actor | None, party: str | None) -> Documents:
        name = self.resolve(slug)
        self.previewed = None
        self.last_recorded = None
        for attempt in range(SAVE_ATTEMPTS):
            campaign = self._checked_campaign(name)
            campaign.stamp = self._stamp(actor)
            campaign.acting_party = self.acting_party(name, campaign.game, party)
            event = action(campaign)
            self.last_recorded = (slug, name, campaign.ruleset_name)
            if preview:
                self.previewed = campaign
                return [event_document(event)]
            try:
                with self.reader.store_errors():
                    self._save(campaign)
            except (RecordConflictError, IntegrityError):
                time.sleep(0.01 * (attempt + 1) + secrets.randbelow(20) / 1000)
                continue
            if self.unfolded:
                self._finish([event])
            if type(event).ends_party:
                self._follow_merge(name, event)
            return [event_document(event)]
        raise ConcurrentChange(
            "the campaign changed while this was being recorded; run the command again"
        )

    def _checked_campaign(self, name: str) -> Campaign:
        """Campaign `name` loaded to record in, its chain checked (`_check_head`)."""
        # The head is read before the log: events are only ever added, so the log read
        # after it reaches at least as far unless some were deleted. `resolve` may have
        # read it already (the first attempt only).
        heads, self._heads_read = self._heads_read, {}
        head = (heads[name] if name in heads
                else self.projector.chain_head(str(campaign_id(name))))
        campaign = self._load_to_record(name)
        self._check_head(campaign, head)
        if self.writable and (head is None or head[0] < campaign.kept_at):
            # The read models stopped short of the newest snapshot (a process stopped
            # between an append and their update): they are brought up now, though nothing
            # decided here reads them, so even a refused command repairs them. Should that
            # fail, the update after the append tries again.
            with suppress(Exception):
                self.catch_up()
        return campaign

    def _follow_merge(self, slug: str, merged: TrekEvent) -> None:
        """The party in use merged into another no longer exists: commands act on the party
        it joined."""
        from domain.parties import PartiesMerged

        assert isinstance(merged, PartiesMerged)
        if merged.party is not None and self.party_in_use(slug) == merged.name:
            with self.reader.store_errors(), self.views.transaction() as cursor:
                readmodels.save_setting(cursor, party_key(slug), merged.party)

    def catch_up(self, progress: Progress | None = None) -> int:
        return self.reader.catch_up(progress)

    def _require_writable(self, preview: bool = False) -> None:
        # A preview (or a previewing Trek, read-only) stores nothing it decides.
        if not (self.writable or preview or self.preview):
            raise RuntimeError("a read command tried to record")

    # -- use cases: the campaign --------------------------------------------------------------

    def init(self, name: str, *, ruleset: str | None = None, map_text: str | None = None,
             at: Square | None = None, seed: int | None = None,
             picture: Picture | None = None) -> Documents:
        """Start campaign `name` under `ruleset` (default: the registry's first), its map's
        `picture` (checked) kept in the store."""
        if self.preview:
            raise RuleViolation(INIT_HAS_NO_PREVIEW)
        self._require_writable()
        campaign = new_campaign(self.rulesets, self._stamp(), name, ruleset=ruleset,
                                map_text=map_text, at=at, seed=seed, picture=picture)
        slug = campaign.slug
        if slug in {c["slug"] for c in self.campaigns()}:
            raise RuleViolation(f"the store already has a campaign called {slug!r}; "
                                "pick another name or use --db for another store")
        started = campaign.pending_events[0]
        try:
            with self.reader.store_errors(), self.picture_kept(picture):
                self._save(campaign)
        except (RecordConflictError, IntegrityError):
            raise RuleViolation(f"the store already has a campaign called {slug!r}") from None
        if self.unfolded:
            self._finish([started])
        return [event_document(started)]

    def previewed_encounter(self) -> EncounterDocument | None:
        """After a preview, the open encounter as it would stand had the previewed event been
        recorded (None with none open, or before any preview): what a move would leave."""
        if self.previewed is None:
            return None
        campaign = self.previewed
        return encounter_of(campaign.situation(), campaign.ruleset)

    # -- the one door for every write ---------------------------------------------------------

    def handle(self, slug: str | None, command: Command, *, preview: bool = False,
               actor: Actor | None = None, party: str | None = None) -> Documents:
        """Load the campaign, decide `command`, save its event and catch up the read models;
        the event's document (a reversal's with `targets`, what it cancelled or restored).

        The event is stamped with `actor`, who the command is recorded for (None: this
        Trek's GM, `--gm`); an actor whose names fail the checks is refused before the
        campaign is loaded. The command acts on party `party` (None: the party in use). With
        `preview` (or on a previewing Trek) the event is decided as
        recording would decide it and returned unsaved, its seq the one it would get.
        """
        if actor is not None:
            actor.check()
        docs = self._record(slug, self._action(command), preview=preview, actor=actor,
                            party=party)
        if any(doc["type"] in NAMED_BY for doc in docs):
            return list(self.reader.with_targets(self.recorded_slug(slug), docs))
        return docs

    def handle_each(self, slug: str | None, commands: list[tuple[Command, str | None]],
                    more: Callable[[], list[tuple[Command, str | None]]] | None = None
                    ) -> list[Documents | Exception]:
        """Record `commands` (each with the party it acts on; None: the party in use) in one
        transaction: each decided in turn on the campaign as the ones before it left it, each
        its own event and its own answer, its documents or what refused it. A refused command
        records nothing and the others go on; an error of the store is raised, and then none
        was recorded. Only commands the campaign decides alone (`decided_alone`).

        `more` gives the commands that came meanwhile, asked once this process has its turn
        at the campaign (`campaign_turn`): they are recorded after `commands`, and answered
        after them in the list returned."""
        self._require_writable()
        self._parties_read, self._heads_read = {}, {}
        try:
            return self._record_each(slug, list(commands), more)
        finally:
            self._parties_read, self._heads_read = None, {}

    def _record_each(self, slug: str | None, commands: list[tuple[Command, str | None]],
                     more: Callable[[], list[tuple[Command, str | None]]] | None
                     ) -> list[Documents | Exception]:
        name = self.resolve(slug)
        self.previewed = None
        self.last_recorded = None
        if self._parties_read is not None and name not in self._parties_read:
            # The party in use, read once for all of them.
            self._parties_read[name] = self.party_in_use(name)
        with campaign_turn(self.views, campaign_id(name), self.location):
            if more is not None:
                commands += more()
            if not all(decided_alone(command) for command, _ in commands):
                raise ValueError("a reversal reads the stored log around its target: record "
                                 "it with `handle`")
            return self._record_each_in_turn(slug, name, commands)

    def _record_each_in_turn(self, slug: str | None, name: str,
                             commands: list[tuple[Command, str | None]]
                             ) -> list[Documents | Exception]:
        for attempt in range(SAVE_ATTEMPTS):
            campaign = self._checked_campaign(name)
            start = campaign.version
            outcomes: list[TrekEvent | Exception] = []
            events: list[TrekEvent] = []
            for command, party in commands:
                try:
                    campaign.stamp = self._stamp()
                    campaign.acting_party = self.acting_party(name, campaign.game, party)
                    event = campaign.handle(command)
                except Exception as refusal:
                    outcomes.append(refusal)
                    # Nothing is decided on what a refusal may have left half-changed: the
                    # campaign is loaded again and the events decided before it folded in.
                    fresh = self._load_to_record(name)
                    if fresh.version != start:
                        break  # another GM recorded meanwhile: all decided again
                    for decided in events:
                        decided.mutate(fresh)
                    campaign = fresh
                    continue
                outcomes.append(event)
                events.append(event)
            else:
                self.last_recorded = (slug, name, campaign.ruleset_name)
                if not events:
                    return [outcome for outcome in outcomes if isinstance(outcome, Exception)]
                try:
                    with self.reader.store_errors():
                        self._save(campaign, events)
                except (RecordConflictError, IntegrityError):
                    # What it clashed with is committed already: decided again at once, and
                    # only a second clash waits (a batch holds several clients' answers).
                    if attempt:
                        time.sleep(0.01 * attempt + secrets.randbelow(20) / 1000)
                    continue
                if self.unfolded:
                    self._finish(events)
                for event in events:
                    if type(event).ends_party:
                        self._follow_merge(name, event)
                return [[event_document(outcome)] if isinstance(outcome, TrekEvent)
                        else outcome for outcome in outcomes]
        raise ConcurrentChange(
            "the campaign changed while this was being recorded; run the command again"
        )

    def recorded_slug(self, slug: str | None) -> str:
        """`resolve(slug)`, answered from the campaign just recorded in when it was the one."""
        last = self.last_recorded
        return last[1] if last is not None and last[0] == slug else self.resolve(slug)

    def _action(self, command: Command) -> Callable[[Campaign], TrekEvent]:
        """What recording `command` does to the loaded campaign: most commands the campaign
        decides alone; a reversal first reads the log around its target."""
        if not command.reads_log:
            return lambda campaign: campaign.handle(command)
        # Loaded by now (the command was made from it); a plain command never loads it.
        from domain.commands.history import Undo

        return (self._undo_action(command) if isinstance(command, Undo)
                else self._redo_action(cast("Redo", command)))

    def _undo_action(self, command: Undo) -> Callable[[Campaign], TrekEvent]:
        seq, last = command.seq, command.last
        if last is not None:
            if seq is not None:
                raise RuleViolation("give SEQ or --last KIND, not both")
            self._check_kind(last)

        def action(campaign: Campaign) -> TrekEvent:
            target = seq if seq is not None else self._latest_live(campaign, last)
            if target < 1 or target > campaign.version:
                raise NotFound(f"there is no event {target}; the log runs 1 to {campaign.version}")
            campaign.check_cancellable([target])
            before = self._game_before(campaign, target)
            # Streamed: the later events are read once, a page at a time, as they are checked.
            later = page_events(self.app.events, campaign.id, gt=target - 1,
                                lte=campaign.version)
            return campaign.cancel([target], before=before, later=later,
                                   cascade=command.cascade, reason=command.reason)
        return action

    def _redo_action(self, command: Redo) -> Callable[[Campaign], TrekEvent]:
        seq = command.seq

        def action(campaign: Campaign) -> TrekEvent:
            if seq < 1 or seq > campaign.version:
                raise NotFound(f"there is no event {seq}; the log runs 1 to {campaign.version}")
            targets = _redo_targets(self.reader.event(campaign.slug, seq), campaign)
            campaign.check_restorable(targets)
            first = min(targets)
            before = self._game_before(campaign, first)
            later = page_events(self.app.events, campaign.id, gt=first - 1,
                                lte=campaign.version)
            return campaign.restore(targets, before=before, later=later, reason=command.reason)
        return action

    # -- history --------------------------------------------------------------------------------

    def _latest_live(self, campaign: Campaign, kind: str | None = None) -> int:
        """The newest live event that can be undone (of `kind`, a word of `undo --last`)."""
        top = campaign.version
        while top > 0:
            page = self.reader.events_desc(campaign.slug, top)
            cancelled = campaign.cancelled_in(page[-1].seq, top) if page else {}
            for event in page:
                if (type(event).undoable and event.seq not in cancelled
                        and (kind is None or kind in type(event).undo_kinds)):
                    return event.seq
            top = page[-1].seq - 1 if page else 0
        if kind is not None:
            raise RuleViolation(f"there is no live {kind} event to undo")
        raise RuleViolation("there is nothing to undo yet")

    def _check_kind(self, kind: str) -> None:
        kinds = self.rulesets.undo_kinds
        if kind not in kinds:
            shown = kind if len(kind) <= 40 else kind[:40] + "..."
            raise RuleViolation(f"there is no kind of event called {shown!r} to undo; "
                                f"--last takes {', '.join(kinds)}")

    def _game_before(self, campaign: Campaign, first: int) -> Game:
        """The game just before event `first`, under today's cancellations.

        The stored state at `first - 1` (its nearest snapshot and the events since) serves
        when the same earlier events count today as counted then. When a later reversal
        changed that, the stored state just before the earliest event it changed is tried
        (and so on, a few times), and the events from there are folded under today's
        cancellations; failing that, the campaign is folded from its start, streamed a page at
        a time.
        """
        if first <= 1:
            # Nothing comes before the campaign's start (and the store has no version 0).
            return Game()
        from domain.history import fold_live

        start = first
        for _ in range(GAME_BEFORE_STEPS):
            past = self.reader.get(campaign.id, version=start - 1)
            differing = campaign.cancellations_differing(start, past)
            if not differing:
                # The stored game before `start` counts the same earlier events as today; the
                # events from there to `first` are folded under today's cancellations.
                return (past.game if start == first else fold_live(
                    page_events(self.app.events, campaign.id, gt=start - 1, lte=first - 1),
                    campaign.live_in_order(), past.game))
            start = differing[0]
            if start <= 1:
                break
        return fold_live(page_events(self.app.events, campaign.id, lte=first - 1),
                         campaign.live_in_order())

    # -- reading ----------------------------------------------------------------------------------

    def replay(self, progress: Progress | None = None, *,
               accept_tampering: bool = False) -> dict[str, Any]:
        """Rebuild every read model from the log in one transaction; records no event.

        Over a broken hash chain it refuses, unless told to take the log as it now stands.
        """
        started = time.perf_counter()
        if accept_tampering:
            if not self.verify_chain()["verified"]:
                with self.reader.store_errors():
                    self.projector.forget_chain_heads()
            folded = self._rebuild(progress, None)
        else:
            # The chains are checked on the rows as the rebuild folds them, so the log is read
            # once. Only when that finds a break is every chain walked again, to say where.
            try:
                with self._rebuild_links() as links:
                    folded = self._rebuild(progress, links)
            except ChainBroken:
                broken = [c for c in self.verify_chain()["campaigns"] if not c["intact"]]
                if broken:
                    first = broken[0]
                    raise TamperedLog(
                        f"the log of {first['campaign']} is damaged at event "
                        f"{first['broken_at']} ({first['problem']}); nothing was rebuilt. `trek "
                        "verify` shows it; `trek replay --accept-tampering` rebuilds from the "
                        "log as it now stands") from None
                # The rows are out of the order the chain walk reads them in, but every link
                # holds: the ordinary rebuild says what is wrong, if anything.
                folded = self._rebuild(progress, None)
        return {"rebuilt": True, "notifications": folded,
                "seconds": round(time.perf_counter() - started, 3)}

    def _rebuild(self, progress: Progress | None, links: RebuildLinks | None) -> int:
        try:
            with self.reader.store_errors():
                return self.projector.rebuild(progress, links)
        except (TrackerError, ChainBroken):
            raise
        except Exception as error:
            raise StoreError(f"the rebuild failed ({self._describe(error)}); the read models "
                             "were left as they were") from None

    def _rebuild_links(self) -> RebuildLinks:
        """How a replay checks the hash chains as it folds: in a process of its own beside the
        fold on a long SQLite log with a second processor to run on, else in this one."""
        from tracker.chain_reader import ParallelLinks, RebuildLinks

        reader = self._chain_reader()
        table = self.projector.events_table()
        if (self.location.kind is StoreKind.SQLITE and table is not None
                and _processors() >= 2
                and (self.app.recorder.max_notification_id() or 0) >= PARALLEL_CHAIN_FROM):
            return ParallelLinks(reader, self.location.target, table)
        return RebuildLinks(reader)

    def _chain_reader(self) -> ChainReader:
        from tracker.chain_reader import ChainReader

        return ChainReader(self.app, self.projector, self.location)

    def verify_views(self, progress: Progress | None = None) -> dict[str, Any]:
        """Fold the log in memory and compare with every stored read model; changes nothing."""
        problems, behind = self.projector.verify(progress)
        return {"verified": not problems, "differences": problems, "behind": behind}

    # -- time travel, diff, audit, branches, tamper evidence ------------------------------------

    def branch(self, slug: str | None, name: str, at: int | None = None) -> Documents:
        """A new campaign in this store whose history is this one's up to event `at`
        (previewing: its first event, and nothing made)."""
        self._require_writable()
        origin = self.resolve(slug)
        last = self.queries.last_seq(origin)
        cut = last if at is None else at
        if not 1 <= cut <= last:
            raise NotFound(f"there is no event {cut}; the log of {origin} runs 1 to {last}")
        taken = {c["slug"] for c in self.campaigns()}
        # The campaign plain commands use before the branch, which they go on using after it.
        in_use = self.campaign_in_use()
        before = (in_use if in_use in taken
                  else next(iter(taken)) if len(taken) == 1 else None)
        from tracker.branching import branched

        campaign = branched(self.app.events, origin, name, cut, self._stamp(), taken)
        first = campaign.pending_events[0]
        if self.preview:
            return [event_document(first)]
        try:
            # One save: the whole copied history lands in one transaction, or none of it.
            with self.reader.store_errors():
                self.app.save(campaign)
        except (RecordConflictError, IntegrityError):
            raise RuleViolation(f"the store already has a campaign called {campaign.slug!r}"
                                ) from None
        self.appended.append(first)
        if before is not None and before != in_use:
            # The store's only campaign was in use without being named: it is named now, as
            # `trek campaigns use` would, so the branch does not leave plain commands unsure.
            try:
                with self.reader.store_errors(), self.views.transaction() as cursor:
                    readmodels.save_setting(cursor, IN_USE_KEY, before)
            except Exception as error:
                self.warnings.append(recorded_but_warning(
                    [first], f"the campaign in use could not be kept ({self._describe(error)}); "
                    f"`trek campaigns use {before}` keeps it"))
        assert self.app.snapshots is not None
        try:
            self.app.snapshots.put([CampaignSnapshot.take(campaign)])
        except Exception as error:
            self.warnings.append(recorded_but_warning(
                [first], f"its snapshot could not be written ({self._describe(error)}); "
                "loading it folds its whole history until its next snapshot"))
        self._finish([first])
        return [event_document(first)]

    def verify(self, slug: str | None = None) -> dict[str, Any]:
        """`trek verify`: every campaign's hash chain (`verify_chain`) and, for each whose chain
        holds, its read models compared with the campaign as the log gives it (its newest
        snapshot and the events since, as recording loads it): the status they show and the
        kept status document. Comparing every read model with a fold of the whole log is
        `trek replay --verify`'s work."""
        from tracker import pictures

        self._check_file()
        kinds: dict[str, list[str]] = {}
        result = self.verify_chain(slug, kinds)
        for report in result["campaigns"]:
            name = report["campaign"]
            report["read_models"] = (
                self._read_model_differences(name) + self._index_differences(name, kinds[name])
                if report["intact"] else None)
            report["pictures"] = (pictures.problems(self.views, self._pictures_named(name))
                                  if report["intact"] else [])
        result["verified"] = all(r["intact"] and not r["read_models"] and not r["pictures"]
                                 for r in result["campaigns"])
        return result

    def _pictures_named(self, name: str) -> list[str]:
        """The hashes of the pictures campaign `name`'s maps name, in the events that set
        them."""
        named = []
        for event in self.reader.events(name):
            game_map = getattr(event, "map", None)
            image = (game_map.image if isinstance(game_map, GameMap)
                     else game_map.get("image") if isinstance(game_map, dict) else None)
            if isinstance(image, dict) and isinstance(image.get("sha256"), str):
                named.append(image["sha256"])
        return named

    def _read_model_differences(self, name: str) -> list[str]:
        """How the read models of campaign `name` differ from its log, a sentence each."""
        from projections.compare import changes

        cid = str(campaign_id(name))
        if self.projector.stored_view(cid) is None:
            return []  # nothing stored for it (yet, or still in an older release's tables)
        view = self.queries.view(name)
        past = self.queries.view_as_of(name, view.events)
        expected = json.loads(json.dumps(self.queries.status_of_view(past)))
        found = [f"{c['field']} is stored as {c['b']!r} but the log gives {c['a']!r}"
                 for c in changes(expected, self.queries.status_of_view(view))]
        kept = self.projector.kept_status(cid)
        if kept is not None and kept[0] == view.events and kept[1] != expected:
            found += [f"the kept status document has {c['field']} {c['b']!r} but the log "
                      f"gives {c['a']!r}" for c in changes(expected, kept[1])
                      ] or ["the kept status document differs from the log's"]
        return found

    def _check_file(self) -> None:
        """SQLite's own check of every page of an SQLite store (`PRAGMA quick_check`, a read
        of the file, as the chain walk is of the log): a store SQLite cannot read is damaged,
        whatever its chains say."""
        if self.location.kind is not StoreKind.SQLITE:
            return
        try:
            with self.reader.store_errors():
                found = [str(row[0]) for row in self.views.query("PRAGMA quick_check")]
        except StoreError:
            raise
        except Exception as error:
            damage = sqlite_damage(error)
            if damage is None:
                raise
            found = [damage]
        if found != ["ok"]:
            # Its first finding, on one line (SQLite heads them with the database's name).
            lines = [line for text in found for line in text.splitlines()
                     if line.strip() and not line.startswith("***")]
            detail = lines[0] if lines else found[0]
            raise damaged_store(self.location.display,
                                detail if len(detail) <= 160 else detail[:160] + "...")

    def _index_differences(self, name: str, kinds: list[str]) -> list[str]:
        """Where the log's index of campaign `name` differs from the kinds of event its log
        holds (`kinds`, read by the chain walk); nothing when its read models are not stored
        (yet, or still in an older release's tables)."""
        cid = campaign_id(name)
        if self.projector.stored_view(str(cid)) is None:
            return []
        return self._chain_reader().index_differences(cid, kinds)

    def verify_chain(self, slug: str | None = None, kinds: dict[str, list[str]] | None = None
                     ) -> dict[str, Any]:
        """Walk each campaign's hash chain over the stored rows; names the first broken link.
        `kinds`: each campaign's event kinds as walked, by its name (for `trek verify`)."""
        reader = self._chain_reader()
        if slug is not None:
            name = self.resolve(slug)
            named = [(name, campaign_id(name))]
        else:
            logged = reader.logged_campaigns(lambda: [c["slug"] for c in self.campaigns()])
            named = [(name, campaign_id(name)) for name in logged]
            named += reader.lost_campaigns(logged)
        reports = []
        for name, cid in named:
            check = reader.check(cid, None if kinds is None else kinds.setdefault(name, []))
            if check.events == 0 and check.intact:
                raise self.reader.no_campaign(name)
            reports.append({"campaign": name, "events": check.events, "intact": check.intact,
                            "broken_at": check.broken_at, "problem": check.problem})
        return {"verified": all(r["intact"] for r in reports), "campaigns": reports}


@singledispatch
def _redo_targets(named: TrekEvent, campaign: Campaign) -> list[int]:
    """What `trek redo SEQ` restores: the event itself."""
    return [named.seq]


@_redo_targets.register
def _(named: EventsCancelled, campaign: Campaign) -> list[int]:
    # Redoing an undo restores what it cancelled that still stands cancelled by it.
    seq = named.seq
    cancelled = (campaign.cancelled_in(min(named.cancels), max(named.cancels))
                 if named.cancels else {})
    targets = [s for s in named.cancels if cancelled.get(s) == seq]
    if not targets:
        raise RuleViolation(f"everything event {seq} cancelled is already restored")
    return targets


def decided_alone(command: Command) -> bool:
    """Whether the campaign decides `command` alone, so it can share a transaction with others
    (`Trek.handle_each`): a reversal reads the stored log around its target first."""
    return not command.reads_log


def new_campaign(rulesets: Registry, stamp: Stamp, name: str, *, ruleset: str | None = None,
                 map_text: str | None = None, at: Square | None = None,
                 seed: int | None = None, picture: Picture | None = None) -> Campaign:
    """Campaign `name` under `ruleset` (default: the registry's first), not yet saved: every
    check of `trek init` that needs no store (the name, the map, the start, the GM's name), so
    `init` can make them before it makes a store file."""
    from tracker.mapformats.tomlfile import load_map

    ruleset = ruleset or rulesets.names[0]
    rules = rulesets.named(ruleset)
    game_map = load_map(map_text, rules) if map_text is not None else None
    if game_map is not None and picture is not None:
        game_map = game_map.model_copy(update={"image": picture.image})
    slugify(name)  # a name with no slug is refused as such before its other checks
    return Campaign.start(
        stamp, name=name, ruleset=ruleset, rulesets=rulesets,
        seed=seed if seed is not None else secrets.randbelow(2**31), game_map=game_map, at=at,
    )


def gm_from_env(explicit: str | None) -> str:
    """The GM name given (`--gm`, TREK_GM), else the OS user's, with the checks every name a
    GM types gets."""
    return checked_gm(explicit)
