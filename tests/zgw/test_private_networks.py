"""ZGW APIs inside a municipality's own network (CASE_EVENTS_PRIVATE_NETWORKS, CASE_EVENTS_CA_FILE): a root
whose name resolves into a listed network is saved and reached over TLS by the municipality's own CA; one
outside it is refused where it is saved and, when its name is re-pointed after the save, where it is
connected to; loopback, link-local and the metadata service stay out unless a listed network names them;
callbacks and SMS gateways reach no further than before; a setting that cannot work stops the process."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import config
from config import get_settings
from models.case_event import CaseEventLink
from models.notification import Notification
from pipeline.domain import case_events as domain
from pipeline.infrastructure import outbound, provider_settings
from pipeline.infrastructure.providers.sms import gateways
from tests.admin_helpers import admin_headers, errors
from tests.conftest import _free_port, wait_for
from tests.factories import create_sample_template
from tests.zgw.fakes import zgw_world
from tests.zgw.internal_network import INSIDE, NETWORK, OPEN_KLANT, OPEN_ZAAK, internal_network
from tests.zgw.linked import BSN, CASE_TYPE, citizen, events, link, only_event, seed_case_type

ROOT = Path(__file__).resolve().parents[2]
NOT_LISTED = "must be a public internet address or one in CASE_EVENTS_PRIVATE_NETWORKS"


def _configure(monkeypatch, **changes):
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), **changes))


@pytest.fixture
def internal(tmp_path, monkeypatch):
    return internal_network(tmp_path, monkeypatch)


@pytest.fixture
def inside(internal):
    """The fakes of Open Zaak and Open Klant inside the municipality's network (Open Notificaties on
    127.0.0.1, reached as the tests' CALLBACKS_ALLOW_HTTP_LOOPBACK allows)."""
    with zgw_world(openzaak_tls=internal.openzaak_tls, klant_tls=internal.klant_tls) as world:
        yield world


@pytest.fixture
def listed(monkeypatch, internal):
    _configure(monkeypatch, case_events_private_networks=(NETWORK,), case_events_ca_file=internal.ca_file)


def _final():
    found = events()
    return found[0] if len(found) == 1 and found[0].state not in domain.OPEN else None


def _put(client, service, zgw, **changes):
    sms = create_sample_template(service=service, template_type="sms", name="Zaak", body="Zaak ((zaak.identificatie))")
    body = {"zaken_root": zgw.zaken_root, "catalogi_root": zgw.catalogi_root, "klant_root": zgw.klant_root,
            "client_id": zgw.client_id, "client_secret": zgw.secret, "klant_token": zgw.klant_token,
            "nrc_root": zgw.nrc_root, "nrc_client_id": zgw.nrc_client_id, "nrc_secret": zgw.nrc_secret,
            "case_types": [CASE_TYPE], "templates": {"received": {"sms": str(sms.id)}}, **changes}
    return client.put(f"/admin/services/{service.id}/case-events", json=body, headers=admin_headers())


def test_roots_in_a_listed_network_are_saved_and_reached_over_tls_by_the_municipalitys_ca(
        client, service, inside, internal, listed, live_server, worker):
    assert inside.zaken_root.startswith(f"https://{OPEN_ZAAK}:") and inside.klant_root.startswith(f"https://{OPEN_KLANT}:")
    saved = _put(client, service, inside)
    assert saved.status_code == 200, saved.get_json()
    assert client.post(f"/admin/services/{service.id}/case-events/subscription",
                       headers=admin_headers()).get_json()["subscription"]["state"] == "holds"
    case = seed_case_type(inside)
    party = citizen(inside)
    zaak = inside.add_zaak(case.zaaktype, identificatie="ZAAK-INTERN-1", omschrijving="Vergunning", bsn=BSN)

    inside.set_status(zaak, case.received)

    event = wait_for(_final)
    assert (event.state, event.channel, event.zaak_identificatie) == ("sent", "sms", "ZAAK-INTERN-1")
    assert Notification.get_by_id(event.notification_id).body == "Zaak ZAAK-INTERN-1"
    [contact] = wait_for(lambda: inside.klantcontacten())
    assert contact["betrokkenen"][0]["wasPartij"]["url"] == party
    # Reached by the names' address inside the network, every answer a 2xx.
    assert INSIDE in internal.connected_to
    assert {status for _, _, status in inside.requests("zaken") + inside.requests("klant")} <= {200, 201}
    assert len(inside.requests("zaken")) >= 3 and len(inside.requests("klant")) == 2


def test_the_municipalitys_ca_must_be_given_or_the_event_waits_saying_so(
        service, inside, monkeypatch, live_server, worker):
    _configure(monkeypatch, case_events_private_networks=(NETWORK,))  # no CASE_EVENTS_CA_FILE: certifi's roots
    link(inside, service)
    case = seed_case_type(inside)
    citizen(inside)
    zaak = inside.add_zaak(case.zaaktype, identificatie="ZAAK-INTERN-2", omschrijving="Vergunning", bsn=BSN)
    inside.set_status(zaak, case.received)

    waiting = wait_for(lambda: next((e for e in events() if e.state == domain.WAITING), None))
    assert waiting.detail == {"api": "zaken", "status": None, "code": "certificate"}
    assert inside.requests("zaken") == []  # no request went through a connection it could not trust
    text = _console_events(service)
    assert "Wacht: het certificaat van de Zaken API (Open Zaak) wordt niet vertrouwd (1 keer geprobeerd)" in text


def test_roots_outside_the_listed_network_or_without_it_are_refused_where_saved(
        client, service, inside, internal, monkeypatch):
    unlisted = _put(client, service, inside)  # the setting not given: inside is no further than before
    assert errors(unlisted) == (400, [("ValidationError", "zaken_root must be a public internet address"),
                                      ("ValidationError", "catalogi_root must be a public internet address"),
                                      ("ValidationError", "klant_root must be a public internet address")])
    _configure(monkeypatch, case_events_private_networks=("10.20.31.0/24",), case_events_ca_file=internal.ca_file)
    assert errors(_put(client, service, inside))[1][0] == ("ValidationError", f"zaken_root {NOT_LISTED}")
    _configure(monkeypatch, case_events_private_networks=(NETWORK,), case_events_ca_file=internal.ca_file)
    internal.addresses[OPEN_ZAAK] = "169.254.169.254"  # the metadata service, in no listed network
    assert errors(_put(client, service, inside))[1][:2] == [("ValidationError", f"zaken_root {NOT_LISTED}"),
                                                           ("ValidationError", f"catalogi_root {NOT_LISTED}")]
    internal.addresses[OPEN_ZAAK] = INSIDE
    plain = inside.zaken_root.replace("https://", "http://")  # inside too, only https
    assert errors(_put(client, service, inside, zaken_root=plain)) == (
        400, [("ValidationError", "zaken_root is not a valid https url")])
    assert CaseEventLink.select().count() == 0
    internal.addresses[OPEN_ZAAK] = "10.99.0.1"
    page = _console_connection(service, inside)
    assert "Zaken API: vul een URL in van een server op het openbare internet of in een intern netwerk dat de " \
           "beheerder heeft toegestaan" in page


def test_a_name_re_pointed_after_the_save_is_refused_where_connected_and_nothing_reaches_it(
        service, inside, internal, listed, monkeypatch, live_server, worker):
    link(inside, service)  # saved and subscribed while the name is inside the network
    case = seed_case_type(inside)
    citizen(inside)
    zaak = inside.add_zaak(case.zaaktype, identificatie="ZAAK-INTERN-3", omschrijving="Vergunning", bsn=BSN)
    # Re-pointed at loopback, where the fake really listens; loopback neither allowed nor listed.
    internal.addresses[OPEN_ZAAK] = "127.0.0.1"
    _configure(monkeypatch, callbacks_allow_http_loopback=False)

    inside.set_status(zaak, case.received)  # Open Notificaties posts it to us as before

    event = wait_for(_final)
    assert (event.state, event.detail) == ("api-refused", {"api": "zaken", "status": None,
                                                           "code": "address-refused"})
    assert inside.requests("zaken") == [] and inside.requests("catalogi") == []
    assert Notification.select().count() == 0
    text = _console_events(service)
    assert "Niet verstuurd: de Zaken API (Open Zaak) staat op een adres dat deze dienst niet mag bereiken" in text
    assert only_event().id == event.id


def _console_member(service):
    from console import app as console_app
    from tests.console.service_pages import signed_in_client
    from tests.console.users import create_console_user

    user = create_console_user(service=service, permissions=["view_activity", "manage_service"]).user
    return signed_in_client(console_app, user)


def _console_events(service) -> str:
    from tests.console.service_pages import page_text

    return page_text(_console_member(service).get(f"/services/{service.id}/case-events"))


def _console_connection(service, zgw) -> str:
    from tests.console.service_pages import csrf_token, page_text

    member = _console_member(service)
    url = f"/services/{service.id}/service-settings/case-events/connection"
    return page_text(member.post(url, data={
        "csrf_token": csrf_token(member, url), "zaken_root": zgw.zaken_root, "catalogi_root": zgw.catalogi_root,
        "klant_root": zgw.klant_root, "client_id": zgw.client_id, "client_secret": zgw.secret,
        "klant_token": zgw.klant_token}))


@pytest.mark.parametrize(("host", "resolved", "networks", "allowed"), [
    ("open-zaak.gemeente.nl", ["10.20.30.40"], (NETWORK,), True),
    ("open-zaak.gemeente.nl", ["10.20.30.40", "10.20.31.1"], (NETWORK,), False),  # one address outside: the name
    ("open-zaak.gemeente.nl", ["10.20.30.40"], (), False),
    ("openzaak", ["10.20.30.40"], (NETWORK,), True),  # inside, names of one label are the rule
    ("open-zaak.ns.svc.cluster.local", ["10.20.30.40"], (NETWORK,), True),
    ("metadata.google.internal", ["10.20.30.40"], (NETWORK,), False),  # the metadata names never
    ("open-zaak.gemeente.nl", ["127.0.0.1"], (NETWORK,), False),  # loopback only where listed
    ("open-zaak.gemeente.nl", ["127.0.0.1"], (NETWORK, "127.0.0.0/8"), True),
    ("open-zaak.gemeente.nl", ["169.254.169.254"], (NETWORK,), False),  # link-local and metadata only where listed
    ("open-zaak.gemeente.nl", ["169.254.169.254"], ("169.254.169.254/32",), True),
    ("open-zaak.gemeente.nl", ["::ffff:10.20.30.40"], (NETWORK,), True),
    ("open-zaak.gemeente.nl", ["fd00:1::5"], ("fd00:1::/64",), True),
    ("open-zaak.gemeente.nl", ["93.184.215.14"], (NETWORK,), True),  # public stays public
])
def test_the_address_check_with_listed_networks(host, resolved, networks, allowed):
    def check() -> list[str]:
        return outbound.connectable_addresses(host, 443, plain_http=False, allow_loopback=False,
                                              resolver=lambda name, port: resolved,
                                              networks=outbound.parsed_networks(networks))
    if allowed:
        assert check() == resolved
    else:
        with pytest.raises(outbound.RefusedAddress):
            check()
    with pytest.raises(outbound.RefusedAddress):  # plain http: inside as anywhere, never
        outbound.connectable_addresses(host, 80, plain_http=True, allow_loopback=False,
                                       resolver=lambda name, port: ["10.20.30.40"],
                                       networks=outbound.parsed_networks((NETWORK,)))


def test_callbacks_and_sms_gateways_reach_no_further(client, service, internal, listed, monkeypatch):
    _configure(monkeypatch, callbacks_allow_http_loopback=False)
    refused = client.put(f"/admin/services/{service.id}/callbacks/delivery-status",
                         json={"url": f"https://{INSIDE}/cb", "bearer_token": "callback-token-1234"},
                         headers=admin_headers())
    assert errors(refused) == (400, [("ValidationError", "url must be a public internet address")])
    assert gateways.url_problem(f"https://{OPEN_ZAAK}/sms", look_up=True) == "must be a public internet address"
    with pytest.raises(outbound.RefusedAddress):  # the callbacks' and gateways' session, at the connection
        outbound.session().get(f"https://{OPEN_ZAAK}/", timeout=2)
    assert INSIDE not in internal.connected_to


@pytest.mark.parametrize(("changes", "line"), [
    ({"case_events_private_networks": ("10.0.0.0/33",)},
     "CASE_EVENTS_PRIVATE_NETWORKS: 10.0.0.0/33 is not a network in CIDR notation (such as 10.0.0.0/8)"),
    ({"case_events_private_networks": ("10.1.2.3/8",)},
     "CASE_EVENTS_PRIVATE_NETWORKS: 10.1.2.3/8 has host bits set: did you mean 10.0.0.0/8?"),
    ({"case_events_private_networks": (NETWORK, "0.0.0.0/0")},
     "CASE_EVENTS_PRIVATE_NETWORKS: 0.0.0.0/0 is not a private range: only addresses no public host has are "
     "listed (inside 10.0.0.0/8, "),
    ({"case_events_private_networks": ("10.0.0.0/7",)}, "CASE_EVENTS_PRIVATE_NETWORKS: 10.0.0.0/7 is not a private"),
    ({"case_events_ca_file": "/nonexistent/gemeente-ca.pem"},
     "CASE_EVENTS_CA_FILE: cannot be read as PEM certificates: "),
])
def test_a_setting_that_cannot_work_is_named_in_one_line_by_every_process(changes, line):
    settings = dataclasses.replace(get_settings(), callbacks_allow_http_loopback=False)
    for process in provider_settings.PROCESSES:
        assert provider_settings.problems(settings, process) == []
        found = provider_settings.problems(dataclasses.replace(settings, **changes), process)
        assert len(found) == 1 and found[0].startswith(line), found
    assert outbound.parsed_networks(changes.get("case_events_private_networks", ())) == ()  # reaches less, never more


def test_a_web_process_with_a_network_it_cannot_list_refuses_to_start():
    env = {**os.environ, "REDIS_URL": config.redis_url(get_settings()), "WEB_CONCURRENCY": "1",
           "CASE_EVENTS_PRIVATE_NETWORKS": "10.20.30.0/24, 10.0.0.0/33"}
    done = subprocess.run([sys.executable, "-m", "gunicorn", "app:app", "--bind", f"127.0.0.1:{_free_port()}"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == provider_settings.EXIT_MISCONFIGURED, output
    refusals = [json.loads(entry)["message"] for entry in output.splitlines() if "refusing to start" in entry]
    assert refusals == ["refusing to start: CASE_EVENTS_PRIVATE_NETWORKS: 10.0.0.0/33 is not a network in CIDR "
                        "notation (such as 10.0.0.0/8)"], output


def test_the_setting_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("CASE_EVENTS_PRIVATE_NETWORKS", " 10.20.30.0/24 ,fd00:1::/64,, ")
    monkeypatch.setenv("CASE_EVENTS_CA_FILE", "/etc/ssl/certs/ca-certificates.crt")
    loaded = config.load_settings()
    assert loaded.case_events_private_networks == ("10.20.30.0/24", "fd00:1::/64")
    assert loaded.case_events_ca_file == "/etc/ssl/certs/ca-certificates.crt"
