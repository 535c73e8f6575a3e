"""The console's "What recipients see" pages: a service's language and brands, with previews, and
the platform admins' brands page. Changes go through the admin API's functions (same rules, same
history)."""
from __future__ import annotations

import io

import pypdf

from models.appearance import EmailBrand, LetterBrand, appearance_of
from tests.console.browser import assert_accessible
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.pipeline.test_logos import SVG, png


def test_member_sets_language_and_brand_and_sees_the_previews(console_app, service):
    member = create_console_user(service=service, permissions=["manage_service"])
    client = signed_in_client(console_app, member.user)
    brand = EmailBrand.create(name="Gemeente Voorbeeld", colour="#154273")
    path = f"/services/{service.id}/service-settings/appearance"
    page = client.get(path).get_data(as_text=True)
    assert "Wat ontvangers zien" in page and "Nu: Nederlands." in page and "Gemeente Voorbeeld" in page
    assert "Huisstijlen beheren" not in page  # platform admins only
    saved = client.post(path, data={"csrf_token": csrf_token(client, path), "language": "en",
                                    "email_brand": str(brand.id), "letter_brand": ""})
    assert saved.status_code == 302
    current = appearance_of(service.id)
    assert (current.language, current.email_brand.id, current.letter_brand) == ("en", brand.id, None)
    email = client.get(f"{path}/email-preview")
    sample = email.get_data(as_text=True)
    assert '<html lang="en">' in sample and "background-color: #154273" in sample
    letter = client.get(f"{path}/letter-preview.pdf")
    assert letter.mimetype == "application/pdf"
    assert "Page 1 of 1" in pypdf.PdfReader(io.BytesIO(letter.data)).pages[0].extract_text()
    settings = client.get(f"/services/{service.id}/service-settings").get_data(as_text=True)
    assert "Wat ontvangers zien" in settings and path in settings


def test_appearance_needs_manage_service(console_app, service):
    viewer = create_console_user(service=service, permissions=["view_activity"])
    client = signed_in_client(console_app, viewer.user)
    assert client.get(f"/services/{service.id}/service-settings/appearance").status_code == 403


def test_platform_admin_adds_brands_with_logos_and_refusals_are_shown(console_app):
    admin = create_console_user(platform_admin=True)
    client = signed_in_client(console_app, admin.user)
    token = csrf_token(client, "/brands")
    added = client.post("/brands/email", content_type="multipart/form-data", data={
        "csrf_token": token, "email-name": "Gemeente Utrecht", "email-colour": "#cc0000", "email-brand_type": "both",
        "email-logo": (io.BytesIO(SVG), "logo.svg")})
    assert added.status_code == 302
    brand = EmailBrand.get(EmailBrand.name == "Gemeente Utrecht")
    assert bytes(brand.logo_png).startswith(b"\x89PNG") and brand.brand_type == "both"
    refused = client.post("/brands/letter", content_type="multipart/form-data", data={
        "csrf_token": token, "letter-name": "Gemeente Utrecht",
        "letter-logo": (io.BytesIO(b'<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'), "x.svg")})
    assert refused.status_code == 200 and "SVG logo must not contain &lt;script&gt;" in refused.get_data(as_text=True)
    client.post("/brands/letter", content_type="multipart/form-data", data={
        "csrf_token": token, "letter-name": "Gemeente Utrecht", "letter-logo": (io.BytesIO(png()), "logo.png")})
    assert LetterBrand.select().count() == 1
    member = create_console_user(permissions=[])
    assert signed_in_client(console_app, member.user).get("/brands").status_code == 403


def test_appearance_page_is_accessible(signed_in_admin, service):
    signed_in_admin.goto(f"/services/{service.id}/service-settings/appearance")
    assert signed_in_admin.locator("h1").inner_text() == "Wat ontvangers zien"
    assert_accessible(signed_in_admin)
    signed_in_admin.goto("/brands")
    assert_accessible(signed_in_admin)
