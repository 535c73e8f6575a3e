"""The case events' list and each case's page: every identificatie Open Zaak may give reaches its case's page,
whatever characters it holds ("/", "?", "#", "%", spaces, non-ASCII), and the lists page as the message
list does (newest first, a link to the older ones). The events are kept as the stage keeps them."""
from __future__ import annotations

import datetime
import html
import re
import uuid

from models.case_event import CaseEvent, CaseEventLink
from models.db import utcnow
from pipeline.domain import case_events as domain
from tests.console.service_pages import csrf_token, page_text, signed_in_client
from tests.console.users import create_console_user

ROOT = "https://open-zaak.gemeente.nl/zaken/api/v1/"
IDENTIFICATIES = ["ZAAK/2026/0001", "ZAAK?x=1", "ZAAK#1", "100%", "%2F", "ZAAK 2026 2", "ZAAK-ÄÖ-ë-ß", "..",
                  "a/../b", "ZAAK+1&y=2"]
OLDER = "Oudere zaakgebeurtenissen"


def _link(service) -> CaseEventLink:
    return CaseEventLink.create(service=service, zaken_root=ROOT, catalogi_root=ROOT, klant_root=ROOT,
                                client_id="notify", client_secret="s", klant_token="t", callback_auth="Bearer x")


def _event(link: CaseEventLink, zaak: str, received_at: datetime.datetime, state: str = domain.NOT_INFORMED,
           status: str = "Ontvangen") -> CaseEvent:
    return CaseEvent.create(link=link.id, service=link.service_id, message_key=uuid.uuid4().hex, message={},
                            state=state, zaak_identificatie=zaak, status_omschrijving=status,
                            scenario="received", received_at=received_at)


def _member(console_app, service, permissions=("view_activity", "manage_service")):
    return signed_in_client(console_app, create_console_user(service=service, permissions=list(permissions)).user)


def _hrefs(page, pattern: str) -> list[str]:
    return [html.unescape(href) for href in re.findall(r'href="([^"]*)"', page.get_data(as_text=True))
            if re.search(pattern, html.unescape(href))]


def test_every_identificatie_reaches_its_case_page(console_app, service):
    link = _link(service)
    now = utcnow()
    for number, zaak in enumerate(IDENTIFICATIES):
        _event(link, zaak, now - datetime.timedelta(minutes=number), status=f"Status {number}")
    member = _member(console_app, service)
    listing = member.get(f"/services/{service.id}/case-events")

    cases = _hrefs(listing, r"/case-events/case\b")
    assert len(cases) == len(IDENTIFICATIES)
    for number, (zaak, href) in enumerate(zip(IDENTIFICATIES, cases, strict=True)):
        page = member.get(href)
        assert page.status_code == 200, (zaak, href)
        text = page_text(page)
        assert f"Zaak {zaak}" in text, (zaak, href)
        assert f"Status {number}" in text
        assert [other for other in range(len(IDENTIFICATIES)) if f"Status {other} " in text + " "] == [number]


def test_a_retried_event_comes_back_to_its_case_page_whatever_its_identificatie(console_app, service):
    link = _link(service)
    event = _event(link, "ZAAK/2026 #7?", utcnow(), state=domain.NO_TEMPLATE)
    member = _member(console_app, service)
    page = f"/services/{service.id}/case-events"
    answer = member.post(f"{page}/{event.id}/retry", data={"csrf_token": csrf_token(member, page)})

    assert answer.status_code == 302
    back = member.get(answer.headers["Location"])
    assert back.status_code == 200 and "Zaak ZAAK/2026 #7?" in page_text(back)


def test_an_unknown_or_overlong_case_is_not_found(console_app, service):
    link = _link(service)
    _event(link, "ZAAK-1", utcnow())
    member = _member(console_app, service)
    for query in ("?zaak=ZAAK-2", "?zaak=" + "Z" * 41, "?zaak=", ""):
        assert member.get(f"/services/{service.id}/case-events/case{query}").status_code == 404, query


def test_the_events_list_pages_newest_first(console_app, service):
    link = _link(service)
    now = utcnow()
    # Some received in the same instant: the page's order and its cursor must still be total.
    made = [_event(link, f"ZAAK-{number:03d}", now - datetime.timedelta(seconds=number // 3))
            for number in range(61)]
    newest_first = sorted(made, key=lambda e: (e.received_at, e.id.hex), reverse=True)
    member = _member(console_app, service)

    first = member.get(f"/services/{service.id}/case-events")
    shown = re.findall(r"ZAAK-\d{3}", page_text(first))
    assert len(shown) == 50
    [older] = _hrefs(first, r"older_than=")
    assert 'rel="next"' in first.get_data(as_text=True) and OLDER in page_text(first)

    second = member.get(older)
    rest = re.findall(r"ZAAK-\d{3}", page_text(second))
    assert shown + rest == [e.zaak_identificatie for e in newest_first]
    assert OLDER not in page_text(second) and _hrefs(second, r"older_than=") == []


def test_another_services_event_is_no_cursor(console_app, service):
    from tests.factories import create_service

    _event(_link(service), "ZAAK-1", utcnow())
    other = create_service()
    theirs = _event(_link(other), "ZAAK-2", utcnow())
    member = _member(console_app, service)
    page = member.get(f"/services/{service.id}/case-events?older_than={theirs.id}")
    assert page.status_code == 200 and "ZAAK-" not in page_text(page)


def test_one_cases_page_pages_too_and_keeps_to_its_case(console_app, service):
    link = _link(service)
    now = utcnow()
    for number in range(55):
        _event(link, "ZAAK/1", now - datetime.timedelta(seconds=number), status=f"Stap {number:02d}")
    _event(link, "ZAAK/2", now, status="Stap van een andere zaak")
    member = _member(console_app, service)

    first = member.get(f"/services/{service.id}/case-events/case?zaak=ZAAK%2F1")
    assert re.findall(r"Stap \d\d", page_text(first)) == [f"Stap {n:02d}" for n in range(50)]
    [older] = _hrefs(first, r"older_than=")
    second = member.get(older)
    assert "Zaak ZAAK/1" in page_text(second)
    assert re.findall(r"Stap \d\d", page_text(second)) == [f"Stap {n:02d}" for n in range(50, 55)]
    assert "andere zaak" not in page_text(first) + page_text(second)


def test_in_a_browser_each_case_link_opens_its_case_and_the_list_pages(signed_in_member, service):
    from tests.console.browser import assert_accessible

    page = signed_in_member
    link = _link(service)
    now = utcnow()
    awkward = ["ZAAK/2026 #1?", "a/../b", "100% ë"]
    for number in range(52):
        _event(link, f"ZAAK-{number:03d}", now - datetime.timedelta(minutes=10 + number))
    for number, zaak in enumerate(awkward):
        _event(link, zaak, now - datetime.timedelta(seconds=number), status=f"Status {zaak}")

    page.goto(f"/services/{service.id}/case-events")
    for zaak in awkward:
        page.get_by_role("link", name=zaak, exact=True).click()
        assert page.locator("h1").inner_text() == f"Zaak {zaak}"
        assert f"Status {zaak}" in page.inner_text("main")
        page.go_back()
    page.click(f"text={OLDER}")
    assert re.findall(r"ZAAK-\d{3}", page.inner_text("main")) == ["ZAAK-047", "ZAAK-048", "ZAAK-049", "ZAAK-050",
                                                                   "ZAAK-051"]
    for label, width in {"wide": 1280, "narrow": 375}.items():
        page.set_viewport_size({"width": width, "height": 900})
        assert_accessible(page)
        page.screenshot(path=f"/tmp/case-events-older-{label}.png", full_page=True)
