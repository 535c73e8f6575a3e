"""The API's reference page in Dutch and English (/docs/nl, /docs/en; /docs by the reader's
Accept-Language), every operation's summary in both; and the API's root, which points to it: a browser is
sent to the page, any other client gets the addresses in JSON. The document itself stays English."""
from __future__ import annotations

import html

from config import get_settings
from pipeline.domain.i18n import translator


def _page(client, path: str, **headers) -> str:
    response = client.get(path, headers=headers)
    assert response.status_code == 200 and response.content_type.startswith("text/html")
    return html.unescape(response.get_data(as_text=True))


def test_the_reference_page_in_dutch_and_in_english(client):
    dutch, english = _page(client, "/docs/nl"), _page(client, "/docs/en")
    assert '<html lang="nl">' in dutch and '<html lang="en">' in english
    assert "<h1>API van de berichtendienst</h1>" in dutch and "<h1>Notification service API</h1>" in english
    assert "Een sms-bericht versturen. Authenticatie: serviceKey." in dutch
    assert "Send a text message. Authentication: serviceKey." in english
    assert "Send a text message." not in dutch and "Een sms-bericht versturen." not in english
    assert '<a href="/docs/en" lang="en" hreflang="en">English</a>' in dutch
    assert '<a href="/docs/nl" lang="nl" hreflang="nl">Nederlands</a>' in english
    # The machine-readable document is the same for both: English, as the spec's texts are.
    assert client.get("/openapi.json").get_json()["paths"]["/v2/notifications/sms"]["post"]["summary"] == (
        "Send a text message.")


def test_every_text_of_the_document_has_its_dutch(client):
    document = client.get("/openapi.json").get_json()
    texts = [document["info"]["title"], document["info"]["description"],
             *(tag["description"] for tag in document["tags"]),
             *(scheme["description"] for scheme in document["components"]["securitySchemes"].values())]
    for methods in document["paths"].values():
        for operation in methods.values():
            texts += [operation["summary"], *(r["description"] for r in operation["responses"].values())]
    dutch = translator("nl")
    assert [text for text in dict.fromkeys(texts) if dutch.gettext(text) == text] == []


def test_docs_follows_the_readers_language_dutch_unless_they_ask_for_english(client):
    assert '<html lang="en">' in _page(client, "/docs", **{"Accept-Language": "en-GB,en;q=0.8"})
    assert '<html lang="nl">' in _page(client, "/docs", **{"Accept-Language": "nl-NL,en;q=0.5"})
    assert '<html lang="nl">' in _page(client, "/docs", **{"Accept-Language": "fr"})
    assert '<html lang="nl">' in _page(client, "/docs")
    missing = client.get("/docs/fr")
    assert missing.status_code == 404 and missing.get_json()["status_code"] == 404


def test_the_root_points_to_the_documentation(client):
    for accept in ("application/json", "*/*", None):
        response = client.get("/", headers={"Accept": accept} if accept else {})
        assert response.status_code == 200 and response.content_type == "application/json"
        base = get_settings().base_url  # the API's public address: BASE_URL
        assert response.get_json() == {
            "name": "Notification service API",
            "documentation": {"nl": f"{base}/docs/nl", "en": f"{base}/docs/en"},
            "openapi": f"{base}/openapi.json",
        }
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    response = client.get("/", headers={"Accept": browser, "Accept-Language": "en-US,en;q=0.9"})
    assert response.status_code == 302 and response.headers["Location"] == "/docs/en"
    response = client.get("/", headers={"Accept": browser})
    assert response.status_code == 302 and response.headers["Location"] == "/docs/nl"
