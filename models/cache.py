"""An in-process cache for the rows every send reads (service, keys, templates, senders), made stale
everywhere at once by any change to them.

A settings generation in Redis changes with every committed write to the settings tables (services,
their keys, templates, senders, team and the rest: the models marked @settings_table): every process
sets a new one after committing such a write, whatever wrote it (admin API, CLI, console), because
the hook hangs off the database handle itself (watch_settings_writes), and announces it: a web
process listening (models.settings_listener) hands each new generation to observe() and
acknowledges it, and the write returns once every listener has (or the TTL has passed). An entry is
used only while no other generation has been seen since it was loaded. So a revoked key, a service
going live or a changed limit counts from the next request in every process, with no Redis read and
no query per request. A request in a process not listening (yet, or since its connection broke)
reads the generation itself (core.fresh_settings.observe_settings).

Entries also expire after CACHE_TTL_SECONDS (default 2 s): the bound on staleness where no
generation is read (worker processes) or Redis could not be asked.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import re
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
from typing import TypeVar

import peewee
import redis

from config import get_settings, redis_url

T = TypeVar("T")
MAX_ENTRIES = 10_000

log = logging.getLogger(__name__)

_entries: dict[Hashable, tuple[float, int, object]] = {}
_lock = threading.Lock()
# The settings generation last seen, and how many different ones this process has seen. An entry is
# used only under the epoch it was loaded in: a load that starts once a request has seen a new
# generation starts after the write that made it committed, and an entry loaded earlier never counts
# again, even when requests that read the old generation report it after one that read the new one.
_seen: bytes | None = None
_epoch = 0


class _Load:
    """A load of one key under way: the requests that miss the same entry meanwhile wait for it."""

    __slots__ = ("epoch", "done", "value", "loaded")

    def __init__(self, epoch: int) -> None:
        self.epoch, self.done, self.loaded = epoch, threading.Event(), False
        self.value: object = None


_loading: dict[Hashable, _Load] = {}


def _join(key: Hashable, epoch: int) -> tuple[_Load, bool]:
    """The load of key under way in this epoch, or a new one; True when the caller leads it."""
    with _lock:
        flight = _loading.get(key)
        if flight is not None and flight.epoch == epoch:
            return flight, False
        flight = _loading[key] = _Load(epoch)
        return flight, True


def cached(key: Hashable, load: Callable[[], T]) -> T:
    ttl = get_settings().cache_ttl_seconds
    if ttl <= 0:
        return load()
    now, epoch = time.monotonic(), _epoch
    hit = _entries.get(key)
    if hit is not None and hit[0] > now and hit[1] == epoch:
        return hit[2]  # type: ignore[return-value]
    # When an entry expires, every request of a busy process misses it at once (16 at a time under
    # the accept benchmark, each its own query). One loads; the others of the same epoch wait for
    # its value, which is as fresh as their own load would be (it started under their epoch).
    flight, leading = _join(key, epoch)
    if not leading:
        flight.done.wait()
        return flight.value if flight.loaded else load()  # type: ignore[return-value]
    try:
        value = load()
        flight.value, flight.loaded = value, True
        with _lock:
            if len(_entries) >= MAX_ENTRIES:
                _entries.clear()
            if epoch == _epoch:  # a load that a newer generation overtook would only displace a good entry
                _entries[key] = (now + ttl, epoch, value)
        return value
    finally:
        with _lock:
            if _loading.get(key) is flight:
                del _loading[key]
        flight.done.set()


def clear() -> None:
    with _lock:
        _entries.clear()


def observe(generation: bytes | None) -> None:
    """A request read this settings generation: entries loaded before it changed are stale."""
    global _seen, _epoch
    if generation != _seen:
        with _lock:
            if generation != _seen:
                _seen, _epoch = generation, _epoch + 1


def generation_key() -> str:
    return f"{get_settings().queue_namespace}:settings-generation"


@functools.lru_cache(maxsize=8)
def _database_number(url: str) -> int:
    return int(redis.Redis.from_url(url).get_connection_kwargs().get("db") or 0)


def changes_channel() -> str:
    """The channel each new generation is published on (models.settings_listener listens). Keys
    live in one database of a Redis server, but a PUBLISH reaches the subscribers of every database:
    the channel names the database, so two deployments sharing a server in two databases never hear
    each other's changes, nor wait for the other's listeners to acknowledge them."""
    number = _database_number(redis_url(get_settings()))
    return f"{get_settings().queue_namespace}:db{number}:settings-generation-changes"


def acknowledgements_key(generation: bytes) -> str:
    """The list each listener pushes to once it has observed generation."""
    return f"{get_settings().queue_namespace}:settings-generation-heard:{generation.decode()}"


ACKNOWLEDGEMENT_TTL_SECONDS = 60
# How long a settings write waits at least for the listeners: the other processes' TTL is not known
# here, and the tests' one-hour TTL is set only in the server they start.
MIN_WAIT_SECONDS = 2.0


# Writes made inside bookkeeping() change nothing the hot path reads (a key's last use).
_bookkeeping: contextvars.ContextVar[bool] = contextvars.ContextVar("settings_bookkeeping", default=False)


@contextlib.contextmanager
def bookkeeping() -> Iterator[None]:
    """Writes to settings tables in this block do not make a new generation."""
    token = _bookkeeping.set(True)
    try:
        yield
    finally:
        _bookkeeping.reset(token)


# Tables whose writes change what the hot path caches; notifications and the rest do not.
_settings_tables: set[str] = set()
Model = TypeVar("Model", bound=peewee.Model)


def settings_table(model: type[Model]) -> type[Model]:
    """Class decorator of a settings model: every committed write to its table makes a new generation."""
    _settings_tables.add(model._meta.table_name)
    return model


_WRITE = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"(\w+)"', re.IGNORECASE)

_client: redis.Redis | None = None
_client_lock = threading.Lock()


def _redis() -> redis.Redis:
    global _client
    if _client is None:
        with _client_lock:  # one client per process (see pipeline.infrastructure.redis_state.client for why)
            if _client is None:
                _client = redis.Redis.from_url(redis_url(get_settings()), socket_timeout=5)
    return _client


def _bump() -> None:
    # A random value rather than a count: a Redis that restarted empty never hands out one a process
    # has seen before.
    generation = secrets.token_hex(8).encode()
    try:
        pipe = _redis().pipeline(transaction=False)
        pipe.set(generation_key(), generation)
        pipe.publish(changes_channel(), generation)
        listeners = pipe.execute()[1]
    except redis.RedisError:
        # The write is committed; other processes see it once their entries expire (the TTL).
        log.warning("settings changed but Redis could not be told; other processes see it within the cache TTL")
        clear()
        return
    observe(generation)
    _await_listeners(generation, listeners)


def _await_listeners(generation: bytes, listeners: int) -> None:
    """Wait until each listener that received the generation has observed it: the request a caller
    makes once this write has returned must not meet an entry older than it in any process. A
    listener that never answers (a stopped process) costs at most the TTL, after which every entry
    loaded before the write has expired anyway."""
    deadline = time.monotonic() + max(get_settings().cache_ttl_seconds, MIN_WAIT_SECONDS)
    key = acknowledgements_key(generation)
    heard = 0
    try:
        while heard < listeners:
            left = deadline - time.monotonic()
            if left <= 0:
                log.warning("settings changed: %d of %d listening processes did not confirm it in time",
                            listeners - heard, listeners)
                return
            if _redis().blpop([key], timeout=min(left, 1.0)) is not None:
                heard += 1
    except redis.RedisError:
        log.warning("settings changed: could not wait for the listening processes (Redis unavailable)")


_watched: weakref.WeakSet[peewee.Database] = weakref.WeakSet()


def watch_settings_writes(db: peewee.Database | None) -> None:
    """Bump the settings generation after each committed write to a settings table made through db.
    Run for every database the models' handle is given (once per database; models.db.init_database
    hangs it off that handle)."""
    if db is None or db in _watched:
        return
    _watched.add(db)

    def hook(event: peewee.QueryEvent) -> None:
        match = _WRITE.match(event.sql)
        if match and match.group(1) in _settings_tables and event.exception is None and not _bookkeeping.get():
            db.after_commit(_bump)  # at once outside a transaction; dropped on rollback

    db.query_hooks.append(hook)
