"""Every console page in Dutch (the default) and English: every string is translated and compiled."""
from __future__ import annotations

from console.translations import check


def test_every_string_of_the_console_has_a_compiled_dutch_translation():
    assert check() == []


def test_dutch_is_the_default_and_english_can_be_chosen(console_client):
    dutch = console_client.get("/trial-mode").get_data(as_text=True)
    assert '<html lang="nl">' in dutch and "Maak minstens één sjabloon." in dutch

    switched = console_client.get("/language/en?next=/trial-mode")
    assert switched.status_code == 302 and switched.headers["Location"] == "/trial-mode"
    english = console_client.get("/trial-mode").get_data(as_text=True)
    assert '<html lang="en">' in english and "Create at least one template." in english


def test_the_language_switch_only_goes_to_pages_of_this_site(console_client):
    response = console_client.get("/language/en?next=//evil.example.com/")
    assert response.headers["Location"] == "/"
    assert console_client.get("/language/fr").status_code == 404


def test_every_page_names_the_release_in_its_footer_a_template_page_too(console_app, service):
    from tests.console.service_pages import signed_in_client
    from tests.console.users import create_console_user
    from tests.factories import create_sample_template
    from version import __version__

    template = create_sample_template(service=service, body="Hoi")
    member = create_console_user(service=service, permissions=["view_activity", "manage_templates"])
    client = signed_in_client(console_app, member.user)
    for path in ("/trial-mode", f"/services/{service.id}/templates/{template.id}",
                 f"/services/{service.id}/templates/{template.id}/copy"):
        html = client.get(path).get_data(as_text=True)
        assert f'<p class="utrecht-paragraph notify-version">Notify NL {__version__}</p>' in html, path
