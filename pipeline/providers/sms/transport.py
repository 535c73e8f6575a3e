"""The HTTP every SMS gateway client shares: one kept-alive connection pool per gateway, and the
sorting of what went wrong on the wire into the three kinds of pipeline/providers/errors.py.

urllib3 itself rather than requests: requests spent about 0.3 ms of CPU per send on top of it
(measured), on the pipeline's hottest call. Its pool is thread-safe, so worker threads share it.
The environment's proxy and CA bundle are read once, as requests reads them. Without a proxy every
connection goes to an address checked as it is made (pipeline/outbound.py); through the operator's
proxy, that proxy is what connects, and what decides where it may.
"""
from __future__ import annotations

import json
from typing import Any

import certifi
import requests
import urllib3
from urllib3.exceptions import ConnectTimeoutError, HTTPError

from pipeline.outbound import USER_AGENT, RefusedAddress, checked_pool_manager
from pipeline.providers.errors import OutcomeUnknownError, RetryableProviderError

# Connections kept alive to a gateway per worker process: one per worker thread is the most that
# can be busy at once; a thread finding them all busy opens one more for that request alone.
POOL_CONNECTIONS = 32

Response = urllib3.BaseHTTPResponse


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
        """POST and return the answer, whatever its status; `what` names the gateway in errors."""
        try:
            return self._pool.request("POST", url, body=body, headers={**headers, "User-Agent": USER_AGENT},
                                      timeout=self.timeout)
        except RefusedAddress as error:  # the name points somewhere it may not: nothing was sent
            raise RetryableProviderError(f"{what} address refused: {error}") from error
        except ConnectTimeoutError as error:  # refused, unresolvable, or connecting timed out
            raise RetryableProviderError(f"{what} unreachable: {error!r}") from error
        except HTTPError as error:
            # A read timeout or a connection lost after it was made: the gateway may have the message.
            raise OutcomeUnknownError(f"{what} did not answer: {error!r}") from error


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
