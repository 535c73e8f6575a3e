"""gunicorn's gevent worker, closing its idle keep-alive connections soon after it is told to stop.

gunicorn's thread worker closes the connections it keeps open for a next request within 2 s of a
stop. Its gevent worker leaves each one waiting out its whole keep-alive time, so with a keep-alive
longer than the load balancer's (WEB_KEEPALIVE_SECONDS) every stop waited the full graceful timeout
whenever a client or balancer held a connection, and then cut them all at once. Here, as in the
thread worker, a connection waiting for its next request gets STOP_LINGER seconds more (a request
arriving meanwhile is answered with `Connection: close`), then its wait ends as if it had timed out
and gunicorn closes it.

gunicorn.conf.py names this class as the worker class with PostgreSQL.
"""
from __future__ import annotations

from typing import Any

import gevent
from gevent import Timeout
from gunicorn.workers.ggevent import GeventWorker as GunicornGeventWorker

STOP_LINGER = 2.0


class _IdleWait:
    """The wait for a connection's next request, listed in `waiting` while it lasts."""

    def __init__(self, waiting: dict[Any, Timeout], seconds: float) -> None:
        self._waiting = waiting
        # exception=False: the wait ends silently, and gunicorn then closes the connection.
        self._timeout = Timeout(seconds, False)

    def __enter__(self) -> None:
        self._waiting[gevent.getcurrent()] = self._timeout
        self._timeout.start()

    def __exit__(self, *exc_info: Any) -> bool:
        del self._waiting[gevent.getcurrent()]
        return bool(self._timeout.__exit__(*exc_info))


class GeventWorker(GunicornGeventWorker):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._waiting: dict[Any, Timeout] = {}

    def timeout_ctx(self) -> _IdleWait:  # gunicorn's async workers wait for each request inside it
        return _IdleWait(self._waiting, self.cfg.keepalive)

    def run(self) -> None:
        gevent.spawn(self._end_idle_waits_once_stopping)
        super().run()

    def _end_idle_waits_once_stopping(self) -> None:
        while self.alive:
            gevent.sleep(0.5)
        gevent.sleep(STOP_LINGER)
        loop = gevent.get_hub().loop
        for greenlet, timeout in list(self._waiting.items()):
            loop.run_callback(self._end_wait, greenlet, timeout)

    def _end_wait(self, greenlet: Any, timeout: Timeout) -> None:
        # Run by the hub: a connection whose request arrived since keeps it.
        if self._waiting.get(greenlet) is timeout:
            greenlet.throw(timeout)
