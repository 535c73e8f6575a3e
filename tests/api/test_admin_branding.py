"""Admin API: brands, a service's appearance (language and brands) and the previews."""
from __future__ import annotations

import base64
import io
import json
import re

import jsonschema
import pypdf
import pytest

from api.admin.brand_schemas import appearance_response, email_brand_response, letter_brand_response
from tests.admin_helpers import admin_headers, errors, post_service
from tests.pipeline.test_logos import SVG, png

H = admin_headers


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def create_brand(client, kind="email-brands", **body):
    response = client.post(f"/admin/{kind}", json=body, headers=H())
    assert response.status_code == 201, response.get_json()
    return response.get_json()


@pytest.fixture
def service(client):
    return post_service(client, name="Gemeente Voorbeeld", permissions=["email", "letter"])


def test_email_brand_with_svg_logo_is_stored_as_png_and_served_publicly(client):
    brand = create_brand(client, name="Gemeente Utrecht", colour="#cc0000", brand_type="both", logo=b64(SVG))
    jsonschema.validate(brand, email_brand_response)
    assert (brand["name"], brand["colour"], brand["brand_type"], brand["services"]) == (
        "Gemeente Utrecht", "#cc0000", "both", [])
    assert brand["logo"]["height"] == 300 and re.fullmatch(r"/branding/email/[0-9a-f-]{36}/[0-9a-f]{16}\.png",
                                                            brand["logo"]["url"])
    logo = client.get(brand["logo"]["url"])  # no credentials: mail clients fetch it
    assert logo.status_code == 200 and logo.mimetype == "image/png" and logo.data.startswith(b"\x89PNG")
    assert "immutable" in logo.headers["Cache-Control"]
    stale = brand["logo"]["url"].rsplit("/", 1)[0] + "/0000000000000000.png"
    assert client.get(stale).status_code == 404


def test_brand_errors(client):
    create_brand(client, name="Gemeente Utrecht")
    cases = [
        ({"name": "gemeente utrecht"}, 400,
         ("BadRequestError", "Email brand name 'gemeente utrecht' already exists")),
        ({"name": "X", "colour": "red"}, 400,
         ("ValidationError", "colour must be a colour written #rrggbb, like #154273")),
        ({"name": "X", "brand_type": "banner"}, 400,
         ("ValidationError", "brand_type banner is not one of [org, both]")),
        ({"name": "X", "logo": "not base64!"}, 400, ("ValidationError", "logo is not valid base64")),
        ({"name": "X", "logo": b64(b"GIF89a....")}, 400, ("ValidationError", "logo must be a PNG or SVG image")),
        ({"name": "X", "logo": b64(b'<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>')}, 400,
         ("ValidationError", "SVG logo must not contain <script>")),
    ]
    for body, status, expected in cases:
        response = client.post("/admin/email-brands", json=body, headers=H())
        assert errors(response) == (status, [expected]), body
    assert client.get("/admin/email-brands/not-a-uuid", headers=H()).status_code == 400
    assert client.get("/admin/email-brands/00000000-0000-4000-8000-000000000000", headers=H()).status_code == 404


def test_letter_brand_needs_a_logo_and_serves_it_to_admins(client):
    refused = client.post("/admin/letter-brands", json={"name": "Gemeente Utrecht"}, headers=H())
    assert errors(refused) == (400, [("ValidationError", "logo is a required property")])
    brand = create_brand(client, "letter-brands", name="Gemeente Utrecht", logo=b64(png(300, 100)))
    jsonschema.validate(brand, letter_brand_response)
    assert client.get(brand["logo"]["url"]).status_code == 401  # admin only
    logo = client.get(brand["logo"]["url"], headers=H())
    assert logo.status_code == 200 and logo.data.startswith(b"\x89PNG")
    changed = client.patch(f"/admin/letter-brands/{brand['id']}", json={"logo": b64(png(600, 100))}, headers=H())
    assert changed.get_json()["logo"]["width"] == 600


def test_appearance_defaults_to_dutch_and_brands_are_shared_by_services(client, service):
    url = f"/admin/services/{service['id']}/appearance"
    assert client.get(url, headers=H()).get_json() == {"language": "nl", "email_brand_id": None,
                                                       "letter_brand_id": None}
    email = create_brand(client, name="Gemeente Utrecht", colour="#cc0000")
    letter = create_brand(client, "letter-brands", name="Gemeente Utrecht", logo=b64(png()))
    other = post_service(client, name="Gemeente Utrecht Parkeren")
    for service_id in (service["id"], other["id"]):
        changed = client.patch(f"/admin/services/{service_id}/appearance",
                               json={"language": "en", "email_brand_id": email["id"], "letter_brand_id": letter["id"]},
                               headers=H())
        assert changed.status_code == 200
        jsonschema.validate(changed.get_json(), appearance_response)
    assert client.get(url, headers=H()).get_json() == {"language": "en", "email_brand_id": email["id"],
                                                       "letter_brand_id": letter["id"]}
    shared = client.get(f"/admin/email-brands/{email['id']}", headers=H()).get_json()
    assert shared["services"] == sorted([service["id"], other["id"]])
    removed = client.patch(url, json={"email_brand_id": None}, headers=H()).get_json()
    assert removed == {"language": "en", "email_brand_id": None, "letter_brand_id": letter["id"]}
    events = client.get(f"/admin/services/{service['id']}/history", headers=H()).get_json()["events"]
    changes = [(e["before"], e["after"]) for e in events if e["action"] == "service.appearance"]
    assert changes == [({"email_brand_id": email["id"]}, {"email_brand_id": None}),
                       ({"language": "nl", "email_brand_id": None, "letter_brand_id": None},
                        {"language": "en", "email_brand_id": email["id"], "letter_brand_id": letter["id"]})]


def test_appearance_errors(client, service):
    url = f"/admin/services/{service['id']}/appearance"
    unknown = "00000000-0000-4000-8000-000000000000"
    assert errors(client.patch(url, json={"language": "fy"}, headers=H())) == (
        400, [("ValidationError", "language fy is not one of [nl, en]")])
    assert errors(client.patch(url, json={"email_brand_id": unknown}, headers=H())) == (
        400, [("ValidationError", "email_brand_id is not an email brand")])
    assert errors(client.patch(url, json={"letter_brand_id": unknown}, headers=H())) == (
        400, [("ValidationError", "letter_brand_id is not a letter brand")])
    assert client.patch(f"/admin/services/{unknown}/appearance", json={}, headers=H()).status_code == 404


def _template(client, service, **body):
    response = client.post(f"/admin/services/{service['id']}/templates", json=body, headers=H())
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_email_preview_is_the_html_recipients_get(client, service):
    template = _template(client, service, name="Welkom", type="email", subject="Welkom ((naam))",
                         body="Beste ((naam)),\n\n# Uw aanvraag")
    url = f"/admin/services/{service['id']}/templates/{template['id']}/preview"
    plain = client.post(url, json={"personalisation": {"naam": "Jan"}}, headers=H())
    html = plain.get_data(as_text=True)
    assert plain.mimetype == "text/html" and '<html lang="nl">' in html and "Beste Jan," in html
    assert "Deze e-mail is verstuurd door Gemeente Voorbeeld." in html and "<img" not in html
    brand = create_brand(client, name="Gemeente Utrecht", colour="#cc0000", logo=b64(png(200, 100)))
    client.patch(f"/admin/services/{service['id']}/appearance", json={"language": "en", "email_brand_id": brand["id"]},
                 headers=H())
    html = client.post(url, json={"personalisation": {"naam": "Jan"}}, headers=H()).get_data(as_text=True)
    assert '<html lang="en">' in html and "This email was sent by Gemeente Voorbeeld." in html
    assert f'src="http://127.0.0.1:6011{brand["logo"]["url"]}"' in html or brand["logo"]["url"] in html
    assert 'alt="Gemeente Utrecht"' in html and 'width="120" height="60"' in html
    assert "background-color: #cc0000" in html
    assert "font-size: 22px" not in html  # the logo replaces the service name (brand type "org")


def test_letter_preview_is_the_pdf_with_logo_and_both_languages(client, service):
    template = _template(client, service, name="Besluit", type="letter", subject="Uw aanvraag ((nummer))",
                         body="Beste ((naam)),\n\nUw aanvraag is toegekend.", letter_languages="dutch_then_english",
                         letter_english_subject="Your application ((nummer))",
                         letter_english_body="Dear ((naam)),\n\nYour application is granted.")
    assert (template["letter_languages"], template["letter_english_subject"]) == (
        "dutch_then_english", "Your application ((nummer))")
    url = f"/admin/services/{service['id']}/templates/{template['id']}/preview"
    response = client.post(url, json={"personalisation": {"naam": "Jan", "uw kenmerk": "AB-12"}}, headers=H())
    assert response.mimetype == "application/pdf"
    pages = [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(response.data)).pages]
    assert len(pages) == 2
    assert "Uw aanvraag ((nummer))" in pages[0] and "Beste Jan," in pages[0] and "Pagina 1 van 2" in pages[0]
    assert "Uw kenmerk" in pages[0] and "AB-12" in pages[0] and "((adresregel_1))" in pages[0]  # the reader's names
    assert "Your application ((nummer))" in pages[1] and "Dear Jan," in pages[1] and "Page 2 of 2" in pages[1]


def test_bilingual_letter_template_needs_its_english_version(client, service):
    body = {"name": "Besluit", "type": "letter", "subject": "Onderwerp", "body": "Tekst",
            "letter_languages": "dutch_then_english"}
    refused = client.post(f"/admin/services/{service['id']}/templates", json=body, headers=H())
    assert errors(refused) == (400, [
        ("ValidationError", "letter_english_subject is required for dutch_then_english letters"),
        ("ValidationError", "letter_english_body is required for dutch_then_english letters")])
    email = client.post(f"/admin/services/{service['id']}/templates", headers=H(),
                        json={"name": "e", "type": "email", "subject": "s", "body": "b", "letter_english_body": "x"})
    assert errors(email) == (400, [("ValidationError", "letter_english_body is only allowed for letter templates")])
    single = _template(client, service, name="Brief", type="letter", subject="Onderwerp", body="Tekst")
    assert single["letter_languages"] == "single" and single["letter_english_body"] is None
    url = f"/admin/services/{service['id']}/templates/{single['id']}"
    half = client.post(url, json={"letter_languages": "dutch_then_english", "letter_english_subject": "Subject"},
                       headers=H())
    assert errors(half) == (400, [("ValidationError",
                                   "letter_english_body is required for dutch_then_english letters")])
    both = client.post(url, json={"letter_languages": "dutch_then_english", "letter_english_subject": "Subject",
                                  "letter_english_body": "Text"}, headers=H()).get_json()
    assert (both["version"], both["letter_languages"]) == (2, "dutch_then_english")


def test_brand_previews(client):
    email = create_brand(client, name="Gemeente Utrecht", colour="#154273", brand_type="both", logo=b64(png()))
    html = client.get(f"/admin/email-brands/{email['id']}/preview?language=en", headers=H()).get_data(as_text=True)
    assert '<html lang="en">' in html and "This is what your recipients will see." in html
    assert client.get(f"/admin/email-brands/{email['id']}/preview?language=xx", headers=H()).status_code == 400
    letter = create_brand(client, "letter-brands", name="Gemeente Utrecht", logo=b64(png()))
    pdf = client.get(f"/admin/letter-brands/{letter['id']}/preview", headers=H())
    assert pdf.mimetype == "application/pdf"
    assert "Dit is wat uw ontvangers zien." in pypdf.PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()


def test_cli_sets_the_same_appearance(app, client, service):
    brand = create_brand(client, name="Gemeente Utrecht")
    runner = app.test_cli_runner()
    result = runner.invoke(args=["set-appearance", "--service-id", service["id"], "--language", "en",
                                 "--email-brand-id", brand["id"]])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"language": "en", "email_brand_id": brand["id"], "letter_brand_id": None}
    refused = runner.invoke(args=["set-appearance", "--service-id", service["id"], "--language", "fy"])
    assert refused.exit_code == 1 and "language fy is not one of [nl, en]" in refused.output
    cleared = runner.invoke(args=["set-appearance", "--service-id", service["id"], "--email-brand-id", "none"])
    assert json.loads(cleared.output)["email_brand_id"] is None
