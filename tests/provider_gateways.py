"""Real HTTP fakes of the SMS providers, configured as the service's gateways for one test.

    with provider_gateways(["spryng", "twilio"]) as fakes:     # one gateway per type, in that order
        fakes[0].report(webhook_token)                          # Spryng's reports go to its report_url

Each gateway is named "<type>-gw" and configured through SMS_GATEWAYS, as an operator would; Spryng
and CM fakes get the status-report address the admin API shows for their gateway.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator, Sequence
from typing import Any

import config
from pipeline.infrastructure.providers.sms import gateways
from tests.fake_gateway import FakeGateway

ACCOUNT_SID = "AC" + "0123456789abcdef" * 2
TOKENS = {"json": "gateway-token", "spryng": "spryng-api-key", "cm": "00000000-0000-0000-0000-0000000000cm",
          "twilio": "twilio-auth-token"}


def gateway_name(kind: str) -> str:
    return f"{kind}-gw"


@contextlib.contextmanager
def provider_gateways(kinds: Sequence[str], *, priorities: Sequence[int] | None = None,
                      **settings: Any) -> Iterator[list[FakeGateway]]:
    """Fakes of `kinds` (the same kind twice gets "-2" on its name), each a gateway in rotation with
    the given priorities (10 each by default); `settings` change the service's other settings."""
    with contextlib.ExitStack() as stack:
        fakes, entries = [], []
        for index, kind in enumerate(kinds):
            fake = stack.enter_context(FakeGateway(token=TOKENS[kind], dialect=kind, account_sid=ACCOUNT_SID))
            name = gateway_name(kind) + (f"-{index}" if kinds.index(kind) != index else "")
            fakes.append(fake)
            entries.append({"name": name, "type": kind, "url": fake.base_url, "token": TOKENS[kind],
                            "priority": priorities[index] if priorities else 10, "international": True,
                            **({"account_sid": ACCOUNT_SID} if kind == "twilio" else {})})
        before = config.get_settings()
        config._settings = dataclasses.replace(before, sms_gateway_url=None, sms_gateways=json.dumps(entries),
                                               **settings)
        gateways._synced.clear()
        try:
            rows = {row.name: row for row in gateways.in_use(config.get_settings())}
            for fake, entry in zip(fakes, entries, strict=True):
                fake.report_url = gateways.webhook_urls(config.get_settings(), rows[entry["name"]])["delivery_reports"]
            yield fakes
        finally:
            config._settings = before
            gateways._synced.clear()
