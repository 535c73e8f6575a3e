"""Asking a provider whether it has a text whose send's outcome we do not know, by our reference.

Which providers can be asked (docs/providers-sms.md, "Unknown outcomes"):
- Spryng lists messages filtered by the reference we gave: `GET {url}/messages` with the filter
  `reference`, answered {"total", "data": [messages, each with its "id" and "reference"], ...}
  (Spryng's own libraries: https://github.com/Spryng/rest-api-node, src/resources/message-client.ts
  and src/spryng.ts, which sends filters as `filters[reference]=`; https://github.com/Spryng/rest-api-php,
  src/Spryng/SpryngRestApi/Resources/MessageClient.php, which sends `reference=`. The two disagree,
  so both are sent: a filter the API does not know is ignored.)
- Twilio fetches a message by its own id (GET .../Messages/{Sid}.json), which an answer that never
  came never gave us, and lists by number and day only: no lookup by our reference.
- CM.com documents no way to ask for a message: its status reports are pushed.
- Our own JSON gateway protocol has none.
A provider that cannot be asked settles the text by its receipt, which names our reference.

An answer is trusted only when it is unambiguous: "found" when a message carries our reference,
"not there" only when the list is empty. Anything else (a filter the API did not apply, an error)
is no answer, and the text goes on waiting.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from pipeline.infrastructure.providers.errors import ProviderError
from pipeline.infrastructure.providers.sms import spryng, types
from pipeline.infrastructure.providers.sms.transport import Transport, json_answer


@dataclass(frozen=True)
class Found:
    provider_id: str  # the provider's id of the message


class NotThere:
    """The provider certainly does not have the text: it may be sent again."""


NOT_THERE = NotThere()
Answer = Found | NotThere | None  # None: no answer to trust (yet)
Lookup = Callable[[str], Answer]

_transports: dict[tuple, Transport] = {}
_lock = threading.Lock()


def lookup_for(kind: str, url: str, token: str | None, *, timeout: float) -> Lookup | None:
    """How to ask a gateway of this type for a text by our reference; None when it cannot be asked."""
    if kind != types.SPRYNG or not token:
        return None
    base = spryng.api_url(url)
    key = (os.getpid(), base, timeout)
    with _lock:
        transport = _transports.get(key) or _transports.setdefault(key, Transport(base, timeout))
    headers = {"Accept": "application/json", "Authorization": f"Bearer {token}"}  # as a send authenticates
    return lambda reference: _ask_spryng(transport, base, headers, reference)


def _ask_spryng(transport: Transport, base: str, headers: dict[str, str], reference: str) -> Answer:
    query = urlencode({"filters[reference]": reference, "reference": reference})
    try:
        response = transport.get(f"{base}/messages?{query}", headers, what="Spryng")
    except ProviderError:
        return None
    answer = json_answer(response)
    if response.status != 200 or not isinstance(answer, dict) or not isinstance(answer.get("data"), list):
        return None
    messages = answer["data"]
    if not messages and answer.get("total") in (0, None):
        return NOT_THERE
    for message in messages:
        if isinstance(message, dict) and message.get("reference") == reference and message.get("id"):
            return Found(str(message["id"]))
    return None
