"""The console's areas register their pages separately: no two may claim the same address, or the one
registered later is never reached (it happened: the bulk-send and send-one choosers shared /send)."""
from __future__ import annotations

from collections import Counter


def test_no_two_console_pages_share_an_address_and_method(console_app):
    claimed = Counter((rule.rule, method) for rule in console_app.url_map.iter_rules()
                      for method in rule.methods - {"HEAD", "OPTIONS"})
    assert [route for route, count in claimed.items() if count > 1] == []
