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

import threading

import requests
from urllib3.exceptions import MaxRetryError, NewConnectionError

from pipeline.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsMessageData,
)


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
        self.timeout = timeout
        self.deduplicates = deduplicates
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        # One Session per thread: requests does not promise a Session is thread-safe, and Dramatiq
        # runs several worker threads. Each keeps its own pool of kept-alive connections.
        self._local = threading.local()

    def send_sms(self, message: SmsMessageData) -> str:
        payload = {
            "to": message.to,
            "from": message.sender,
            "body": message.body,
            "reference": message.notification_id,
            "callback_url": self.callback_url,
        }
        try:
            response = self._session().post(
                f"{self.url}/messages", json=payload, headers=self._headers, timeout=self.timeout
            )
        except (requests.Timeout, requests.ConnectionError) as error:
            if _never_connected(error):
                raise RetryableProviderError(f"SMS gateway unreachable: {error!r}") from error
            raise OutcomeUnknownError(f"SMS gateway did not answer: {error!r}") from error
        if response.ok:
            return _gateway_id(response)
        raise _sort_refusal(response)

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            # The environment's proxies and CA bundle for this gateway, read once: a Session that
            # trusts the environment reads them (and ~/.netrc) again on every request, a third of
            # the CPU the client spends on a send.
            found = session.merge_environment_settings(self.url, {}, None, None, None)
            session.proxies.update(found["proxies"])
            session.verify = found["verify"]
            session.trust_env = False
        return session


def _never_connected(error: requests.RequestException) -> bool:
    """True when the request certainly never reached the gateway: no connection was made (refused,
    unresolvable, or connecting timed out). A read timeout or a connection lost afterwards may
    come after the gateway took the message."""
    if isinstance(error, requests.ConnectTimeout):
        return True
    reason = error.args[0] if error.args else None
    if isinstance(reason, MaxRetryError):
        reason = reason.reason
    return isinstance(reason, NewConnectionError)


def _gateway_id(response: requests.Response) -> str:
    try:
        gateway_id = response.json().get("id")
    except (ValueError, AttributeError):
        gateway_id = None
    if not isinstance(gateway_id, (str, int)) or gateway_id == "":
        # The gateway took the message, so a retry could send it twice: stop here instead.
        raise FinalProviderError(TECHNICAL_FAILURE, f"SMS gateway answered {response.status_code} without an id")
    return str(gateway_id)


def _sort_refusal(response: requests.Response) -> FinalProviderError | RetryableProviderError:
    status, detail = response.status_code, response.text[:200]
    if status >= 500 or status in (408, 429):  # the gateway answered that it did not take it
        return RetryableProviderError(f"SMS gateway answered {status}: {detail}")
    if status in (400, 422):
        # Our own payload is validated before it gets here, so unless the gateway points at some
        # other field, a refusal is about the recipient.
        try:
            field = response.json().get("field")
        except (ValueError, AttributeError):
            field = None
        if field in (None, "to"):
            return FinalProviderError(PERMANENT_FAILURE, f"SMS gateway refused the recipient: {detail}")
    # 401/403 (our token), 404/405 (our URL), a 400 about another field: our request is wrong.
    return FinalProviderError(TECHNICAL_FAILURE, f"SMS gateway answered {status}: {detail}")
