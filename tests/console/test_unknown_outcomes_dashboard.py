"""The worker dashboard counts the sends waiting on an unknown outcome, per channel, in Dutch."""
from __future__ import annotations

import datetime
import re

from models.db import utcnow
from tests.console.service_pages import signed_in_client
from tests.factories import create_notification, create_sample_template


def test_the_dashboard_counts_sends_waiting_on_an_unknown_outcome(console_app, platform_admin, service):
    template = create_sample_template(service=service)
    for minutes in (3, 8):  # their requests went out that long ago, and no answer came
        create_notification(service=service, template=template, sent_by="http-gateway",
                            dispatch_started_at=utcnow() - datetime.timedelta(minutes=minutes))
    create_notification(service=service, template=template, dispatch_started_at=utcnow())  # in flight now

    html = signed_in_client(console_app, platform_admin.user).get("/platform-admin/workers").get_data(as_text=True)

    assert "Verzendingen die wachten op een onbekende afloop" in html
    assert "na 60 minuten zonder een van beide een technische fout" in html
    sms = re.search(r'<tr class="utrecht-table__row" data-channel="sms">(.*?)</tr>', html, re.S).group(1)
    assert re.search(r'data-field="count">2<', sms)
    assert re.search(r">4[78]\d s<", sms)  # the oldest, eight minutes
    email = re.search(r'<tr class="utrecht-table__row" data-channel="email">(.*?)</tr>', html, re.S).group(1)
    assert re.search(r'data-field="count">0<', email)
