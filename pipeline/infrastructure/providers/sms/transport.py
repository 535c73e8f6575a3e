"""The HTTP every SMS gateway client shares: one kept-alive connection pool per gateway, and the
sorting of what went wrong on the wire into the three kinds of pipeline/infrastructure/providers/errors.py.

urllib3 itself rather than requests: requests spent about 0.3 ms of CPU per send on top of it
(measured), on the pipeline's hottest call. Its pool is thread-safe, so worker threads share it.
The environment's proxy and CA bundle are read once, as requests reads them. Without a proxy every
connection goes to an address checked as it is made (pipeline/infrastructure/outbound.py); through the operator's
proxy, that proxy is what connects, and what decides where it may.

What urllib3 2.x tells us, found against real sockets (tests/pipeline/test_sms_transport.py):
- a connection refused, unresolvable or timed out raises NewConnectionError / ConnectTimeoutError
  (NewConnectionError is a ConnectTimeoutError): nothing was sent;
- a reset while the request is being written is swallowed (urllib3 goes on to read an answer the
  server may have sent first), so it surfaces as the same ProtocolError a reset after the request
  would: only we can tell them apart, by whether urllib3 asked the body for more after handing it
  its last byte (`_Handover`);
- a kept-alive connection the server closed while it lay in the pool is dropped by urllib3 before
  use (it checks each one it takes out), so the request goes out on a new one;
- a reset (RST) before any byte of the answer, with the request written: TCP resets a connection
  closed while data it received is still unread, or data arriving for a connection it no longer has
  (the stale kept-alive connection whose close crossed our request). A server that read the request
  answers it or closes with FIN. So a reset before the answer is "not read": tried again. The one
  case it misreads, a server or proxy that read the request whole and then aborts with RST rather
  than answering, is the risk docs/decisions/sms-providers.md accepts ("Which failed requests were
  certainly not sent?").
- the connection closed cleanly (FIN) before any answer, or no answer within the timeout, with the
  request written: the server may have read it. Outcome unknown.
"""
from __future__ import annotations

import email.utils
import errno
import json
import time
from collections.abc import Iterator
from typing import Any

import certifi
import requests
import urllib3
from urllib3.exceptions import ConnectTimeoutError, HTTPError, ProtocolError

from pipeline.infrastructure.outbound import USER_AGENT, RefusedAddress, checked_pool_manager
from pipeline.infrastructure.providers.errors import OutcomeUnknownError, RateLimited, RetryableProviderError

# Connections kept alive to a gateway per worker process: one per worker thread is the most that
# can be busy at once; a thread finding them all busy opens one more for that request alone.
POOL_CONNECTIONS = 32
# A Retry-After longer than this is read as this: a gateway cannot park our sends for a day.
RETRY_AFTER_MAX_SECONDS = 3600.0

Response = urllib3.BaseHTTPResponse


class _Handover:
    """A request body that knows whether urllib3 handed all of it to the socket: urllib3 asks an
    iterable body for its next chunk only after the previous one was sent."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.written = False

    def __iter__(self) -> Iterator[bytes]:
        yield self.body
        self.written = True


class Transport:
    def __init__(self, url: str, timeout: float) -> None:
        """`url`: the gateway's base address (its proxy is looked up for it); `timeout` in seconds,
        for connecting and for waiting on the answer."""
        self.timeout = urllib3.Timeout(connect=timeout, read=timeout)
        found = requests.Session().merge_environment_settings(url, {}, None, None, None)
        proxy = found["proxies"].get(url.split(":", 1)[0]) or found["proxies"].get("all")
        ca_certs = found["verify"] if isinstance(found["verify"], str) else certifi.where()
        options: dict[str, Any] = {"maxsize": POOL_CONNECTIONS, "retries": False, "ca_certs": ca_certs}
        self._pool = urllib3.ProxyManager(proxy, **options) if proxy else checked_pool_manager(**options)

    def post(self, url: str, body: bytes, headers: dict[str, str], *, what: str) -> Response:
        """POST and return the answer, whatever its status but 429 (RateLimited); `what` names the
        gateway in errors."""
        response = self.request("POST", url, headers, body=body, what=what)
        if response.status == 429:
            raise RateLimited(f"{what} answered 429: {detail(response)}", retry_after(response, time.time()))
        return response

    def get(self, url: str, headers: dict[str, str], *, what: str) -> Response:
        """GET and return the answer, whatever its status (a lookup: safe to repeat)."""
        return self.request("GET", url, headers, what=what)

    def request(self, method: str, url: str, headers: dict[str, str], *, what: str,
                body: bytes | None = None) -> Response:
        handover = _Handover(body) if body is not None else None
        if handover is not None:
            headers = {**headers, "Content-Length": str(len(handover.body))}
        try:
            response = self._pool.request(method, url, body=handover, headers={**headers, "User-Agent": USER_AGENT},
                                          timeout=self.timeout, preload_content=False)
        except RefusedAddress as error:  # the name points somewhere it may not: nothing was sent
            raise RetryableProviderError(f"{what} address refused: {error}") from error
        except HTTPError as error:
            raise _sorted(error, what, handover is None or handover.written) from error
        try:
            response.read(cache_content=True)  # whole, so the connection goes back to the pool
        except HTTPError as error:  # it began to answer, so it had the request
            raise OutcomeUnknownError(f"{what} answer cut short: {error!r}") from error
        finally:
            response.release_conn()
        return response


def _sorted(error: HTTPError, what: str, written: bool) -> RetryableProviderError | OutcomeUnknownError:
    if isinstance(error, ConnectTimeoutError):  # refused, unresolvable, or connecting timed out
        return RetryableProviderError(f"{what} unreachable: {error!r}")
    if not written:  # the connection failed before our request was all on the wire
        return RetryableProviderError(f"{what} connection lost before the request was sent: {error!r}")
    if isinstance(error, ProtocolError) and any(_is_reset(arg) for arg in error.args):
        return RetryableProviderError(f"{what} reset the connection before reading the request: {error!r}")
    # A read timeout, or a connection closed without an answer: the gateway may have the message.
    return OutcomeUnknownError(f"{what} did not answer: {error!r}")


def _is_reset(cause: object) -> bool:
    # ECONNRESET itself: http.client's RemoteDisconnected (a clean close) is a ConnectionResetError too.
    return isinstance(cause, OSError) and cause.errno == errno.ECONNRESET


def retry_after(response: Response, now: float) -> float | None:
    """Retry-After in seconds (RFC 9110: a number of seconds or an HTTP date), at most
    RETRY_AFTER_MAX_SECONDS; None when absent or unreadable."""
    value = (response.headers.get("Retry-After") or "").strip()
    if not value:
        return None
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - now
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), RETRY_AFTER_MAX_SECONDS)


def json_answer(response: Response) -> object:
    """The answer's JSON, or None when it is not JSON."""
    try:
        return json.loads(response.data)
    except ValueError:
        return None


def detail(response: Response) -> str:
    return response.data.decode("utf-8", "replace")[:200]


def unparsable(what: str, response: Response) -> OutcomeUnknownError:
    """A success we cannot read: the gateway may have the message, so it is never sent again blind."""
    return OutcomeUnknownError(f"{what} answered {response.status} in a form we cannot read: {detail(response)}")


def is_busy(status: int) -> bool:
    """The gateway answered that it did not take the message now: overloaded, or down."""
    return status >= 500 or status in (408, 429)
