"""The download page at /d/<service id>/<file id>?key=...: what a recipient's browser gets."""
from __future__ import annotations

import datetime
import re
import urllib.parse

import pytest

from models.db import utcnow
from models.document import Document
from pipeline.stages.documents import crypto
from pipeline.stages.documents.cleanup import delete_expired_files
from tests.factories import create_service
from tests.pipeline.test_documents_filetypes import CSV, PDF
from tests.pipeline.test_documents_prepare import send, upload

RECIPIENT = "Anna.Jansen@Example.nl"


@pytest.fixture
def service():
    return create_service(name="Gemeente Voorbeeld", file_download_contact="help@voorbeeld.nl")


def link(service, **options) -> str:
    files, _ = send(service, {"doc": upload(**options)}, to=RECIPIENT)
    return urllib.parse.urlsplit(files.personalisation["doc"])._replace(scheme="", netloc="").geturl()


def download_href(html: str) -> str:
    return re.search(r'<a class="button" href="([^"]+)"', html).group(1).replace("&amp;", "&")


def test_without_confirmation_page_then_download(client, service):
    url = link(service, content=PDF, filename="Besluit <2026>.pdf", confirm_email_before_download=False)
    page = client.get(url)
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "Besluit &lt;2026&gt;.pdf" in html and "<2026>" not in html  # escaped
    assert "PDF, " in html and "bytes" in html
    assert 'href="mailto:help@voorbeeld.nl"' in html and "Gemeente Voorbeeld" in html
    assert "<script" not in html and "<form" not in html
    assert page.headers["Referrer-Policy"] == "no-referrer" and page.headers["Cache-Control"] == "no-store"
    file = client.get(download_href(html))
    assert file.status_code == 200 and file.data == PDF
    assert file.headers["Content-Type"] == "application/pdf"
    assert file.headers["Content-Disposition"] == 'attachment; filename="Besluit <2026>.pdf"'


def test_confirmation_refuses_wrong_address_and_releases_to_the_right_one(client, service):
    url = link(service, content=CSV, filename="overzicht.csv")
    page = client.get(url).get_data(as_text=True)
    assert '<form method="post"' in page and 'type="email"' in page and 'download' not in page.split("<form")[1]
    assert "/download" not in page
    empty = client.post(url, data={"email_address": ""})
    assert empty.status_code == 400 and "Vul uw e-mailadres in" in empty.get_data(as_text=True)
    wrong = client.post(url, data={"email_address": "someone.else@example.nl"})
    html = wrong.get_data(as_text=True)
    assert wrong.status_code == 400 and "Dit is niet het e-mailadres waarnaar het bestand is gestuurd" in html
    assert 'value="someone.else@example.nl"' in html and "/download" not in html
    right = client.post(url, data={"email_address": " anna.jansen@EXAMPLE.NL "})
    assert right.status_code == 200
    href = download_href(right.get_data(as_text=True))
    assert "token=" in href
    file = client.get(href)
    assert file.data == CSV and file.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert file.headers["Content-Disposition"] == "attachment; filename=overzicht.csv"


def test_download_needs_the_token_when_confirmation_is_on(client, service):
    url = link(service)
    path, query = url.split("?", 1)
    for suffix in ("", "&token=forged"):
        refused = client.get(f"{path}/download?{query}{suffix}")
        assert refused.status_code == 403 and "<form" in refused.get_data(as_text=True)


def test_attempts_are_limited_per_file(client, service):
    url = link(service)
    for _ in range(10):
        assert client.post(url, data={"email_address": "guess@example.nl"}).status_code == 400
    limited = client.post(url, data={"email_address": RECIPIENT})
    assert limited.status_code == 429 and "U heeft te vaak geprobeerd" in limited.get_data(as_text=True)
    other = link(service)  # another file has its own count
    assert client.post(other, data={"email_address": RECIPIENT}).status_code == 200


@pytest.mark.parametrize("mangle", [
    lambda url: url.split("?")[0],
    lambda url: url.split("=")[0] + "=" + crypto.key_to_text(crypto.new_key()),
    lambda url: url[:-1],
    lambda url: url + "%00",
    lambda url: url.replace("/d/", "/d/not-a-uuid-", 1),
    lambda url: re.sub(r"/d/[^/]+/", "/d/00000000-0000-4000-8000-000000000000/", url),
])
def test_wrong_links_get_the_not_found_page(client, service, mangle):
    url = mangle(link(service, confirm_email_before_download=False))
    path, _, query = url.partition("?")
    for response in (client.get(url), client.post(url, data={"email_address": RECIPIENT}),
                     client.get(f"{path}/download?{query}")):
        assert response.status_code == 404 and response.mimetype == "text/html"
        assert "Bestand niet gevonden" in response.get_data(as_text=True)


def test_expired_file_is_gone_then_deleted(client, service):
    url = link(service, confirm_email_before_download=False)
    href = download_href(client.get(url).get_data(as_text=True))
    Document.update(expires_at=utcnow() - datetime.timedelta(minutes=1)).execute()
    for response in (client.get(url), client.get(href), client.post(url, data={"email_address": RECIPIENT})):
        html = response.get_data(as_text=True)
        assert response.status_code == 410 and "Dit bestand is niet meer beschikbaar" in html
        assert "help@voorbeeld.nl" in html
    assert delete_expired_files() == 1
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("contact, expected", [
    ("https://voorbeeld.nl/contact", '<a href="https://voorbeeld.nl/contact" rel="noreferrer noopener">'),
    ("020 123 4567", "Neem contact op met Gemeente Voorbeeld:\n    020 123 4567"),
    ("javascript:alert(1)", "javascript:alert(1)\n"),
])
def test_contact_details_as_link_or_text(client, contact, expected):
    service = create_service(name="Gemeente Voorbeeld", file_download_contact=contact)
    html = client.get(link(service)).get_data(as_text=True)
    assert expected in html
    assert 'href="javascript' not in html


def test_awkward_filenames_download_safely(client, service):
    url = link(service, content=CSV, filename='rapport "juni"\n2026 Zoë.csv', confirm_email_before_download=False)
    file = client.get(download_href(client.get(url).get_data(as_text=True)))
    assert file.status_code == 200 and file.data == CSV
    disposition = file.headers["Content-Disposition"]
    assert "\n" not in disposition and disposition.startswith("attachment;")
    assert "filename*=UTF-8''rapport%20_juni__2026%20Zo%C3%AB.csv" in disposition
