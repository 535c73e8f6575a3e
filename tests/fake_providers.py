"""The protocols the FakeGateway (tests/fake_gateway.py) can speak, each written from its provider's
public documentation (cited in its module) and strict about it: the path it takes texts on (404 on
another), the method (405), the authentication, the content type and the required fields, each
refused with the provider's documented status and error shape; then its answers, and how it posts
delivery reports and received texts.

    FakeGateway(token=..., dialect="twilio", account_sid="AC...")

    json     our own JSON gateway protocol (tests/fake_dialect.py)
    spryng   Spryng's REST API v1 (tests/fake_spryng.py)
    cm       CM.com's Business Messaging API, JSON (tests/fake_cm.py)
    twilio   Twilio's Messages API (tests/fake_twilio.py)

Receipt states are given in our words ("delivered", "undeliverable", "failed", "accepted",
"provider-failure"); each dialect posts them in its own (Spryng STATUS and REASONCODE, CM status code,
Twilio MessageStatus and ErrorCode), and passes any other word through as it is (a status the
service does not know).
"""
from __future__ import annotations

from tests.fake_cm import Cm
from tests.fake_dialect import Answer, Dialect
from tests.fake_spryng import Spryng
from tests.fake_twilio import Twilio

DIALECTS: dict[str, type[Dialect]] = {d.name: d for d in (Dialect, Spryng, Cm, Twilio)}

__all__ = ["DIALECTS", "Answer", "Cm", "Dialect", "Spryng", "Twilio"]
