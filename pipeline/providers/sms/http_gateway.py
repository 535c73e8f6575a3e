"""Text messages through an SMS gateway speaking JSON over HTTP.

The request (one per text message):
    POST {url}/messages
    Authorization: Bearer <token>            (left out when no token is configured)
    {"to": "+31612345678", "from": "<sender>", "body": "<text>",
     "reference": "<our notification id>", "callback_url": "<where to post delivery receipts>"}
The answer:
    2xx {"id": "<gateway message id>", "status": "accepted"}
    400/422 {"error": "<text>", "field": "to"}   the gateway will not take this recipient
    401/403                                      our token is wrong
    429, 5xx                                     try again later
`reference` lets a gateway drop a repeat of a message it already accepted. After a read timeout
we cannot know whether the first attempt got through (OutcomeUnknownError): the worker sends again
only to a gateway configured as one that drops such repeats (`deduplicates`), and otherwise waits
for the receipt, which carries our reference.
"""
from __future__ import annotations

import json
from typing import Any

import certifi
import requests
import urllib3
from urllib3.exceptions import ConnectTimeoutError, HTTPError

from pipeline.outbound import RefusedAddress, checked_pool_manager
from pipeline.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsMessageData,
)

# Connections kept alive to the gateway per worker process: one per worker thread is the most that
# can be busy at once; a thread finding them all busy opens one more for that request alone.
POOL_CONNECTIONS = 32


class HttpSmsGateway:
    name = "http-gateway"

    def __init__(self, url: str, token: str | None, *, callback_url: str, timeout: float = 10.0,
                 deduplicates: bool = False, name: str = "http-gateway") -> None:
        """`timeout` in seconds, for connecting and for waiting on the answer; `deduplicates`: the
        gateway drops a message whose reference it has already accepted; `name`: which of several
        gateways this is (recorded as the notification's provider)."""
        self.name = name
        self.url = url.rstrip("/")
        self.callback_url = callback_url
        self.deduplicates = deduplicates
        self._headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        self._timeout = urllib3.Timeout(connect=timeout, read=timeout)
        # urllib3 itself rather than requests: requests spent about 0.3 ms of CPU per send on top of
        # it (measured), on the pipeline's hottest call. Its pool is thread-safe, so worker threads
        # share it. The environment's proxy and CA bundle are read once, as requests reads them.
        # Without a proxy every connection goes to an address checked as it is made (pipeline/outbound.py);
        # through the operator's proxy, that proxy is what connects, and what decides where it may.
        found = requests.Session().merge_environment_settings(self.url, {}, None, None, None)
        proxy = found["proxies"].get(self.url.split(":", 1)[0]) or found["proxies"].get("all")
        ca_certs = found["verify"] if isinstance(found["verify"], str) else certifi.where()
        options: dict[str, Any] = {"maxsize": POOL_CONNECTIONS, "retries": False, "ca_certs": ca_certs}
        self._pool = urllib3.ProxyManager(proxy, **options) if proxy else checked_pool_manager(**options)

    def send_sms(self, message: SmsMessageData) -> str:
        payload = {
            "to": message.to,
            "from": message.sender,
            "body": message.body,
            "reference": message.notification_id,
            "callback_url": self.callback_url,
        }
        try:
            response = self._pool.request("POST", f"{self.url}/messages", body=json.dumps(payload).encode(),
                                          headers=self._headers, timeout=self._timeout)
        except RefusedAddress as error:  # the name points somewhere it may not: nothing was sent
            raise RetryableProviderError(f"SMS gateway address refused: {error}") from error
        except ConnectTimeoutError as error:  # refused, unresolvable, or connecting timed out
            raise RetryableProviderError(f"SMS gateway unreachable: {error!r}") from error
        except HTTPError as error:
            # A read timeout or a connection lost after it was made: the gateway may have the message.
            raise OutcomeUnknownError(f"SMS gateway did not answer: {error!r}") from error
        if 200 <= response.status < 300:
            return _gateway_id(response)
        raise _sort_refusal(response)


def _json(response: urllib3.BaseHTTPResponse) -> object:
    try:
        return json.loads(response.data)
    except ValueError:
        return None


def _gateway_id(response: urllib3.BaseHTTPResponse) -> str:
    answer = _json(response)
    gateway_id = answer.get("id") if isinstance(answer, dict) else None
    if not isinstance(gateway_id, (str, int)) or gateway_id == "":
        # The gateway took the message, so a retry could send it twice: stop here instead.
        raise FinalProviderError(TECHNICAL_FAILURE, f"SMS gateway answered {response.status} without an id")
    return str(gateway_id)


def _sort_refusal(response: urllib3.BaseHTTPResponse) -> FinalProviderError | RetryableProviderError:
    status, detail = response.status, response.data.decode("utf-8", "replace")[:200]
    if status >= 500 or status in (408, 429):  # the gateway answered that it did not take it
        return RetryableProviderError(f"SMS gateway answered {status}: {detail}")
    if status in (400, 422):
        # Our own payload is validated before it gets here, so unless the gateway points at some
        # other field, a refusal is about the recipient.
        answer = _json(response)
        field = answer.get("field") if isinstance(answer, dict) else None
        if field in (None, "to"):
            return FinalProviderError(PERMANENT_FAILURE, f"SMS gateway refused the recipient: {detail}")
    # 401/403 (our token), 404/405 (our URL), a 400 about another field: our request is wrong.
    return FinalProviderError(TECHNICAL_FAILURE, f"SMS gateway answered {status}: {detail}")
