"""How the Open Notificaties fake posts to subscribers, as github:open-zaak/open-notificaties (commit
a3853ab80dd95488a21ab14a155bb9f89ec005e5) does: src/nrc/api/tasks.py `deliver_message` posts the message
as JSON (`Content-Type: application/json`) with the subscription's `auth` as the `Authorization` header,
and any non-2xx answer or connection error is a failure, retried with exponential back-off up to a
maximum (docs/delivery_guarantees.rst: 7 retries by default, factor 25 s, base 4, spread over about a
day; "at least once": a subscriber must expect the same message again). Here the back-off starts at
`retry_seconds` and doubles, capped at `retry_cap_seconds`, for up to `max_attempts` attempts in all.

One worker thread takes due attempts in order; `stop()` ends it (an attempt in progress finishes first).
"""
from __future__ import annotations

import heapq
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

TIMEOUT = (5, 10)  # connect, read: a subscriber that does not answer is a failed attempt
MAX_RECORDS = 10_000


@dataclass
class Job:
    abonnement: str  # the subscription's URL
    message: dict[str, Any]
    attempt: int = 1


def post(callback_url: str, auth: str | None, message: dict[str, Any]) -> int | None:
    """One POST as the NRC makes it: the status answered, or None when no answer came."""
    headers = {"Content-Type": "application/json"}
    if auth is not None:
        headers["Authorization"] = auth
    try:
        with requests.post(callback_url, data=json.dumps(message), headers=headers, timeout=TIMEOUT,
                           allow_redirects=False, stream=True) as answer:
            return answer.status_code
    except requests.RequestException:
        return None


class Deliverer:
    """Due attempts on a heap, posted by one thread; `target` gives (callbackUrl, auth) of a live
    subscription (None once it is deleted: its pending attempts are dropped, as the NRC cascades)."""

    def __init__(self, target: Callable[[str], tuple[str, str] | None]) -> None:
        self.target = target
        self.retry_seconds = 0.2
        self.retry_cap_seconds = 2.0
        self.max_attempts = 8  # the first attempt and Open Notificaties' default 7 retries
        self.records: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        self._due: list[tuple[float, int, Job]] = []
        self._order = itertools.count()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="fake-nrc-delivery")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        with self.changed:
            self._stopping = True
            self.changed.notify_all()
        if self._thread.is_alive():
            self._thread.join()

    def submit(self, job: Job, delay: float = 0.0) -> None:
        with self.changed:
            heapq.heappush(self._due, (time.monotonic() + delay, next(self._order), job))
            self.changed.notify_all()

    def record(self, entry: dict[str, Any]) -> None:
        with self.changed:
            if len(self.records) < MAX_RECORDS:
                self.records.append(entry)
            self.changed.notify_all()

    def pending(self) -> int:
        with self.changed:
            return len(self._due)

    def _next(self) -> Job | None:
        with self.changed:
            while not self._stopping:
                if self._due and self._due[0][0] <= time.monotonic():
                    return heapq.heappop(self._due)[2]
                wait = self._due[0][0] - time.monotonic() if self._due else None
                self.changed.wait(wait)
            return None

    def _run(self) -> None:
        while (job := self._next()) is not None:
            target = self.target(job.abonnement)
            if target is None:
                continue
            callback_url, auth = target
            status = post(callback_url, auth, job.message)
            self.record({"callbackUrl": callback_url, "status": status, "body": job.message, "test": False,
                         "attempt": job.attempt, "abonnement": job.abonnement, "authorization": auth})
            if (status is None or not 200 <= status < 300) and job.attempt < self.max_attempts:
                delay = min(self.retry_seconds * 2 ** (job.attempt - 1), self.retry_cap_seconds)
                self.submit(Job(job.abonnement, job.message, job.attempt + 1), delay)
