"""The console's SMS gateways page: a platform admin sees each gateway's pace (its type's default
until set) and changes it; every worker reads the change; the history names who made it."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

import config
from models import cache
from models.sms_gateway import SmsGatewayChange
from pipeline.infrastructure.providers.sms import gateways
from pipeline.infrastructure.providers.sms.pacing import Limits
from tests.console.service_pages import csrf_token, signed_in_client


@pytest.fixture
def twilio_gateway():
    before = config.get_settings()
    config._settings = dataclasses.replace(before, sms_gateway_url=None, sms_gateways=json.dumps([
        {"name": "twilio-gw", "type": "twilio", "url": "https://api.twilio.com", "token": "t",
         "account_sid": "AC" + "0" * 32}]))
    gateways._synced.clear()
    try:
        yield next(row for row in gateways.in_use(config.get_settings()) if row.name == "twilio-gw")
    finally:
        config._settings = before
        gateways._synced.clear()


def row_of(html: str, name: str) -> str:
    return re.search(rf'<tr class="utrecht-table__row" data-gateway="{name}">(.*?)</tr>', html, re.S).group(1)


def test_a_platform_admin_sets_a_gateways_pace(console_app, platform_admin, twilio_gateway):
    client = signed_in_client(console_app, platform_admin.user)
    listed = row_of(client.get("/platform-admin/sms-gateways").get_data(as_text=True), "twilio-gw")
    assert re.search(r'data-field="per-second">100 \(standaard\)<', listed)
    assert re.search(r'data-field="in-flight">50 \(standaard\)<', listed)

    path = f"/platform-admin/sms-gateways/{twilio_gateway.id}/pace"
    form = client.get(path).get_data(as_text=True)
    assert "Standaard: 100" in form and "Standaard: 50" in form
    refused = client.post(path, data={"csrf_token": csrf_token(client, path), "max_per_second": "0",
                                      "max_in_flight": "abc"})
    assert refused.status_code == 200
    assert "Vul een heel getal in van 1 tot en met 10000" in refused.get_data(as_text=True)

    saved = client.post(path, data={"csrf_token": csrf_token(client, path), "max_per_second": "12",
                                    "max_in_flight": ""}, follow_redirects=True)
    html = saved.get_data(as_text=True)
    assert "Het tempo van twilio-gw is gewijzigd." in html
    assert re.search(r'data-field="per-second">12<', row_of(html, "twilio-gw"))
    cache.clear()
    row = next(row for row in gateways.in_use(config.get_settings()) if row.name == "twilio-gw")
    assert gateways.limits(row) == Limits(12, 50)  # what every worker paces it by
    change = SmsGatewayChange.select().where(SmsGatewayChange.gateway == row.id) \
        .order_by(SmsGatewayChange.id.desc()).first()
    assert (change.changed_by, change.changes) == (f"console: {platform_admin.user.email_address}",
                                                   {"max_per_second": [None, 12]})


def test_only_platform_admins_see_the_gateways(console_app, service_member, twilio_gateway):
    client = signed_in_client(console_app, service_member.user)
    assert client.get("/platform-admin/sms-gateways").status_code == 403
    assert client.get(f"/platform-admin/sms-gateways/{twilio_gateway.id}/pace").status_code == 403


def test_an_unknown_gateway_is_not_found(console_app, platform_admin):
    client = signed_in_client(console_app, platform_admin.user)
    assert client.get("/platform-admin/sms-gateways/not-an-id/pace").status_code == 404
    assert client.get("/platform-admin/sms-gateways/7d3f0c2e-9d1c-4f8e-8a9b-0c1d2e3f4a5b/pace").status_code == 404


def test_without_a_gateway_the_page_says_how_to_set_one_up(console_app, platform_admin):
    html = signed_in_client(console_app, platform_admin.user).get("/platform-admin/sms-gateways").get_data(as_text=True)
    assert "Er is geen sms-gateway ingesteld: sms-berichten gaan naar de simulator" in html
    # The settings by their names, here only: the pages that need a gateway link to this one.
    for name in ("SMS_GATEWAY_URL", "SMS_GATEWAYS", "POST /admin/sms-gateways"):
        assert f'<code lang="en">{name}</code>' in html
