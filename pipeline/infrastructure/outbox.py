"""An outbox in Redis: items queued one by one, handled in batches by one flush at a time.

The simulated gateway works through two: test-key sends, moved on a batch per UPDATE, and the
receipts it posts back, a batch per webhook request. One statement, request and queue message per
batch rather than per notification is what lets test-key traffic run at the pipeline's full speed.

One flush runs at a time per outbox. `add` arms a flag (SET NX) and the caller schedules a flush
only when it armed it; the flush drains the list, disarms, and re-arms itself if anything arrived
meanwhile. A batch moves atomically from the list into a holding list named by the flush's own id
before it is handled, and leaves it only once handled: a flush that crashed or failed is
redelivered by the broker with the same id and handles what it held first, and one that runs out
of retries gives it back to the queue. Nothing is lost; a batch handled twice must be harmless
(the transition table skips a repeated status). Should a flush message itself be lost (a purged
queue), a periodic job starts a flush for what is waiting.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import redis

from pipeline.infrastructure import throughput

BATCH_SIZE = 500
FLAG_TTL_MS = 60_000  # a flush that died holding the flag blocks new ones for at most this long
HELD_TTL_MS = 7 * 24 * 3600 * 1000  # outlives any broker redelivery of the flush that holds it
FLUSH_BUDGET_SECONDS = 30.0  # far inside a worker's time limit (Dramatiq's default: 10 minutes)

# KEYS: pending list, holding list, flag. ARGV: batch size, holding ttl, flag ttl.
_TAKE = """
local held = redis.call('LRANGE', KEYS[2], 0, -1)
if #held > 0 then return held end
local batch = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #batch == 0 then return batch end
redis.call('LTRIM', KEYS[1], #batch, -1)
redis.call('RPUSH', KEYS[2], unpack(batch))
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return batch
"""
# KEYS: holding list, pending list.
_GIVE_BACK = """
local held = redis.call('LRANGE', KEYS[1], 0, -1)
for i = #held, 1, -1 do redis.call('LPUSH', KEYS[2], held[i]) end
redis.call('DEL', KEYS[1])
return #held
"""


class Outbox:
    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.pending = key
        self.flag = f"{self.pending}:flushing"
        self._take = client.register_script(_TAKE)
        self._give_back = client.register_script(_GIVE_BACK)
        self._adds: throughput.Grouped[list[str], bool] = throughput.grouped(f"outbox-adds:{key}", self._add_many)

    def add(self, *items: Any) -> bool:
        """Queue items (anything JSON can hold) in one round trip, shared with the other threads
        adding at the same moment; True when the caller must schedule a flush. Returns once they
        are in Redis; raises when they could not be put there."""
        return self._adds.submit([json.dumps(item) for item in items])

    def _add_many(self, requests: list[list[str]]) -> list[bool]:
        pipe = self.client.pipeline(transaction=False)
        pipe.rpush(self.pending, *(item for items in requests for item in items))
        pipe.set(self.flag, 1, nx=True, px=FLAG_TTL_MS)
        armed = bool(pipe.execute()[1])
        return [armed and position == 0 for position in range(len(requests))]  # one flush is scheduled

    def waiting(self) -> int:
        """Items queued and not yet taken by a flush."""
        return int(self.client.llen(self.pending))

    def give_back(self, flush_id: str) -> int:
        """Return what a flush that gave up was holding to the front of the queue, for the next
        flush to take; the number of items returned."""
        return int(self._give_back(keys=[self._held(flush_id), self.pending]))

    def _held(self, flush_id: str) -> str:
        return f"{self.pending}:held:{flush_id}"

    def flush(self, flush_id: str, handle: Callable[[list[Any]], None], hand_over: Callable[[], None],
              budget_seconds: float = FLUSH_BUDGET_SECONDS) -> int:
        """Handle everything queued, a batch at a time; the number of items handled.

        `handle` raises to stop the flush; what it was given stays held for this flush_id's retry.
        Under a steady flow the queue never empties: after budget_seconds the flush calls
        hand_over() (which must schedule a new flush) and ends, the flag still armed for that one,
        so no flush outlives its worker's time limit.
        """
        held = self._held(flush_id)
        handled = 0
        deadline = time.monotonic() + budget_seconds
        while True:
            batch = self._take(keys=[self.pending, held, self.flag], args=[BATCH_SIZE, HELD_TTL_MS, FLAG_TTL_MS])
            if batch:
                handle([json.loads(item) for item in batch])
                self.client.delete(held)
                handled += len(batch)
                if time.monotonic() >= deadline:
                    hand_over()
                    return handled
                continue
            self.client.delete(self.flag)
            # Whatever was added after the last batch but before the flag went found it still armed.
            if not self.client.llen(self.pending) or not self.client.set(self.flag, 1, nx=True, px=FLAG_TTL_MS):
                return handled
