"""The template pages: create each kind, edit (every save a new version), earlier versions and their
differences, copy, delete (archive), previews made by the sending pipeline; what the history records."""
from __future__ import annotations

import base64
import io
import re

import pypdf

from models.appearance import appearance_of
from models.audit import AuditEvent
from models.db import utcnow
from models.service import LetterContact
from models.template import Template, TemplateVersion
from pipeline.domain.letters.page_images import page_images
from pipeline.stages.letters.template_letters import preview_letter
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user

EDITOR = ["view_activity", "manage_templates"]


def _client(console_app, service, permissions=EDITOR):  # noqa: ANN001, ANN202
    return signed_in_client(console_app, create_console_user(service=service, permissions=permissions).user)


def _text(response) -> str:  # noqa: ANN001
    return response.get_data(as_text=True)


def test_a_new_email_template_is_saved_as_version_1_and_shown_with_its_preview(console_app, service):
    client = _client(console_app, service)
    chosen = client.post(f"/services/{service.id}/templates/new",
                         data={"csrf_token": csrf_token(client, f"/services/{service.id}/templates/new"),
                               "template_type": "email"})
    assert chosen.status_code == 302 and chosen.headers["Location"] == f"/services/{service.id}/templates/new/email"
    path = f"/services/{service.id}/templates/new/email"
    page = _text(client.get(path))
    assert "Nieuw sjabloon: E-mail" in page and "Opmaakgids" in page and "((voornaam))" in page
    saved = client.post(path, data={"csrf_token": csrf_token(client, path), "action": "save", "name": "Afspraak",
                                     "subject": "Uw afspraak, ((naam))",
                                     "body": "Beste ((naam)),\n\n* eerste\n* tweede", "folder": ""})
    template = Template.get(Template.service == service)
    assert saved.status_code == 302 and saved.headers["Location"] == f"/services/{service.id}/templates/{template.id}"
    version = TemplateVersion.get(TemplateVersion.template == template)
    assert (version.version, version.name, version.subject) == (1, "Afspraak", "Uw afspraak, ((naam))")
    shown = _text(client.get(saved.headers["Location"]))
    assert "Sjabloon opgeslagen" in shown and "<h1 class=\"utrecht-heading-1\">Afspraak</h1>" in shown
    # The email's HTML, as sent, in the preview frame: the list is a list, the placeholder is marked.
    frame = re.search(r'srcdoc="([^"]*)"', shown).group(1)
    assert "&lt;li" in frame and "&lt;mark style=&#34;background:#fff2a8&#34;&gt;((naam))&lt;/mark&gt;" in frame
    assert '<mark class="notify-placeholder">((naam))</mark>' in shown
    event = AuditEvent.get(AuditEvent.action == "template.create")
    assert event.after == {"name": "Afspraak", "type": "email", "version": 1} and event.actor_kind == "user"


def test_missing_fields_are_refused_with_the_fields_errors(console_app, service):
    client = _client(console_app, service)
    path = f"/services/{service.id}/templates/new/email"
    refused = client.post(path, data={"csrf_token": csrf_token(client, path), "action": "save", "name": " ",
                                      "subject": "", "body": ""})
    page = _text(refused)
    assert refused.status_code == 200
    for message in ("Vul een naam in voor het sjabloon", "Vul het onderwerp in", "Vul het bericht in"):
        assert message in page
    assert Template.select().count() == 0
    assert client.get(f"/services/{service.id}/templates/new/fax").status_code == 404


def test_editing_makes_a_new_version_and_the_old_one_stays_readable_and_comparable(console_app, service):
    client = _client(console_app, service)
    path = f"/services/{service.id}/templates/new/sms"
    client.post(path, data={"csrf_token": csrf_token(client, path), "action": "save", "name": "Code",
                            "body": "Uw code is ((code)).\nTot ziens", "folder": ""})
    template = Template.get(Template.service == service)
    edit = f"/services/{service.id}/templates/{template.id}/edit"
    assert "Opslaan maakt versie 2; versie 1 blijft leesbaar." in _text(client.get(edit))
    saved = client.post(edit, data={"csrf_token": csrf_token(client, edit), "action": "save", "name": "Code",
                                     "body": "Uw inlogcode is ((code)).\nTot ziens"})
    assert saved.status_code == 302
    assert [v.body for v in TemplateVersion.select().order_by(TemplateVersion.version)] == [
        "Uw code is ((code)).\nTot ziens", "Uw inlogcode is ((code)).\nTot ziens"]
    old = _text(client.get(f"/services/{service.id}/templates/{template.id}/versions/1"))
    assert "Dit is versie 1, een eerdere versie van dit sjabloon." in old and "Uw code is ((code))." in old
    versions = _text(client.get(f"/services/{service.id}/templates/{template.id}/versions"))
    assert "Versie 2" in versions and "Vergelijken met versie 1" in versions
    compared = _text(client.get(f"/services/{service.id}/templates/{template.id}/compare?from=2&to=1"))
    assert "Versie 1 en versie 2" in compared
    assert '<del><span class="notify-visually-hidden">Verwijderd: </span>Uw code is ((code)).</del>' in compared
    assert '<ins><span class="notify-visually-hidden">Toegevoegd: </span>Uw inlogcode is ((code)).</ins>' in compared
    assert '<li class="notify-diff__line">Tot ziens</li>' in compared
    assert client.get(f"/services/{service.id}/templates/{template.id}/versions/3").status_code == 404
    assert client.get(f"/services/{service.id}/templates/{template.id}/compare?from=1").status_code == 404
    event = AuditEvent.get(AuditEvent.action == "template.update")
    assert event.before["version"] == 1 and event.after["body"] == "Uw inlogcode is ((code)).\nTot ziens"
    # Saving without a change makes no version.
    client.post(edit, data={"csrf_token": csrf_token(client, edit), "action": "save", "name": "Code",
                            "body": "Uw inlogcode is ((code)).\nTot ziens"})
    assert Template.get_by_id(template.id).current_version == 2


def test_the_preview_button_shows_the_text_being_typed_without_saving(console_app, service):
    client = _client(console_app, service)
    path = f"/services/{service.id}/templates/new/sms"
    shown = client.post(path, data={"csrf_token": csrf_token(client, path), "action": "preview", "name": "",
                                    "body": "Hallo ((naam)) 😀"})
    page = _text(shown)
    assert shown.status_code == 200 and Template.select().count() == 0
    assert "Hallo <mark class=\"notify-placeholder\">((naam))</mark> 😀" in page
    assert "17 tekens, 1 sms" in page  # the emoji is two UTF-16 units
    assert 'vanwege: <code class="notify-unicode-char">😀</code>' in page
    assert "Vul een naam in" not in page  # previewing is not saving: no errors


def test_live_preview_answers_fragments_for_each_kind(console_app, service):
    LetterContact.create(service=service, contact_block="Gemeente Voorbeeld\nPostbus 1", is_default=False)
    contact = LetterContact.get(LetterContact.service == service)
    client = _client(console_app, service)
    token = csrf_token(client, f"/services/{service.id}/templates/new/sms")
    sms = _text(client.post(f"/services/{service.id}/templates/preview/sms",
                            data={"csrf_token": token, "body": "a" * 161}))
    assert "161 tekens, 2 sms'en" in sms and "sms-unicode" not in sms
    long = _text(client.post(f"/services/{service.id}/templates/preview/sms",
                             data={"csrf_token": token, "body": "ê" * 919}))
    assert "919 tekens, 14 sms'en" in long and "Een sms kan niet langer zijn dan 918 tekens." in long
    email = _text(client.post(f"/services/{service.id}/templates/preview/email",
                              data={"csrf_token": token, "subject": "Hoi", "body": "[site](https://x.nl/((pad)))"}))
    assert 'title="Voorbeeld van de e-mail"' in email
    assert "href=&#34;https://x.nl/((pad))&#34;" in email  # a placeholder in an address is not marked
    letter = _text(client.post(f"/services/{service.id}/templates/preview/letter",
                               data={"csrf_token": token, "subject": "Kop", "body": "Tekst\n\n" * 60,
                                     "letter_contact": str(contact.id)}))
    pages = re.findall(r'<img class="notify-preview__page" src="data:image/png;base64,([A-Za-z0-9+/=]+)"'
                       r' alt="([^"]+)"', letter)
    assert [alt for _png, alt in pages] == ["Pagina 1 van 3 van de brief", "Pagina 2 van 3 van de brief",
                                            "Pagina 3 van 3 van de brief"]
    # The images are the pages of the very PDF the letter stage prints (same contact block, same text).
    version = TemplateVersion(template=Template(service=service, template_type="letter"), subject="Kop",
                              body="Tekst\n\n" * 60, letter_contact_block=contact.contact_block)
    printed = preview_letter(version, {}, appearance=appearance_of(service.id), sender=service.name, now=utcnow())
    assert [base64.b64decode(png) for png, _alt in pages] == page_images(printed.data)
    assert client.post(f"/services/{service.id}/templates/preview/fax", data={"csrf_token": token}).status_code == 404
    assert client.post(f"/services/{service.id}/templates/preview/sms", data={"body": "x"}).status_code == 400


def test_a_letter_preview_shows_optional_content_and_keeps_a_plain_placeholder(console_app, service):
    client = _client(console_app, service)
    token = csrf_token(client, f"/services/{service.id}/templates/new/letter")

    def pages(body: str) -> list[str]:
        answer = _text(client.post(f"/services/{service.id}/templates/preview/letter",
                                   data={"csrf_token": token, "subject": "Kop", "body": body}))
        return re.findall(r'<img class="notify-preview__page" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', answer)

    # The optional sentence is on the page, as printed for a "ja"; a placeholder of its own stays ((naam)).
    optional = pages("Beste ((naam)),((spoed?? Reageer binnen een week.))")
    assert optional == pages("Beste ((naam)), Reageer binnen een week.")
    assert optional != pages("Beste ((naam)),")
    assert pages("Beste ((naam)),((naam?? Reageer.))") == pages("Beste ((naam)),")


def test_a_letters_address_placeholders_are_named_in_the_pages_language(console_app, service):
    client = _client(console_app, service)
    token = csrf_token(client, f"/services/{service.id}/templates/new/letter")
    body = "Beste ((naam)), ((adresregel_2))"
    preview = _text(client.post(f"/services/{service.id}/templates/preview/letter",
                                data={"csrf_token": token, "subject": "Kop", "body": body}))
    assert re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", preview.split("<img")[0])).strip() == (
        "Invulvelden: ((naam)) Uit de adresregels: ((adresregel_2))")
    guide = _text(client.get(f"/services/{service.id}/templates/new/letter"))
    assert ("een spreadsheet heeft voor elke regel een kolom (adresregel_1 tot en met adresregel_7, of postcode voor"
            " de laatste). Wilt u een regel in de tekst herhalen, schrijf dan de naam tussen dubbele haakjes, zoals "
            "((adresregel_1)).") in guide

    # Without an address, the preview shows where it goes as the send form and a spreadsheet name its lines.
    version = TemplateVersion(template=Template(service=service, template_type="letter"), subject="Kop", body="Tekst")

    def first_page(language: str) -> str:
        pdf = preview_letter(version, {}, appearance=appearance_of(service.id), sender=service.name, now=utcnow(),
                             reader_language=language)
        return pypdf.PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()

    assert "((adresregel_1))\n((adresregel_2))\n((adresregel_3))" in first_page("nl")
    assert "((address_line_1))\n((address_line_2))\n((address_line_3))" in first_page("en")


def test_a_letter_template_chooses_its_contact_block_and_postage(console_app, service):
    LetterContact.create(service=service, contact_block="Gemeente Voorbeeld\nPostbus 1", is_default=True)
    other = LetterContact.create(service=service, contact_block="Afdeling Belastingen\nPostbus 2")
    client = _client(console_app, service)
    path = f"/services/{service.id}/templates/new/letter"
    page = _text(client.get(path))
    assert "Het standaard contactblok van de dienst" in page and "Afdeling Belastingen, Postbus 2" in page
    assert 'alt="Pagina 1 van 1 van de brief"' in page
    client.post(path, data={"csrf_token": csrf_token(client, path), "action": "save", "name": "Aanslag",
                            "subject": "Uw aanslag", "body": "Beste ((naam))", "postage": "first",
                            "letter_contact": str(other.id), "folder": ""})
    version = TemplateVersion.get()
    assert (version.postage, version.letter_contact_id, version.letter_contact_block) == (
        "first", other.id, "Afdeling Belastingen\nPostbus 2")
    shown = _text(client.get(f"/services/{service.id}/templates/{version.template_id}"))
    assert "Prioriteit" in shown and "Kop" in shown
    edit = f"/services/{service.id}/templates/{version.template_id}/edit"
    client.post(edit, data={"csrf_token": csrf_token(client, edit), "action": "save", "name": "Aanslag",
                            "subject": "Uw aanslag", "body": "Beste ((naam))", "postage": "economy",
                            "letter_contact": ""})
    latest = TemplateVersion.get(TemplateVersion.version == 2)
    assert (latest.postage, latest.letter_contact_id) == ("economy", None)


def test_copy_opens_a_filled_in_new_template_and_delete_archives(console_app, service):
    client = _client(console_app, service)
    path = f"/services/{service.id}/templates/new/sms"
    client.post(path, data={"csrf_token": csrf_token(client, path), "action": "save", "name": "Herinnering",
                            "body": "Vergeet ((datum)) niet", "folder": ""})
    original = Template.get()
    copy = f"/services/{service.id}/templates/{original.id}/copy"
    assert 'value="Kopie van Herinnering"' in _text(client.get(copy))
    client.post(copy, data={"csrf_token": csrf_token(client, copy), "action": "save", "name": "Kopie van Herinnering",
                            "body": "Vergeet ((datum)) niet", "folder": ""})
    assert sorted(v.name for v in TemplateVersion.select()) == ["Herinnering", "Kopie van Herinnering"]
    delete = f"/services/{service.id}/templates/{original.id}/delete"
    assert "Herinnering verwijderen" in _text(client.get(delete))
    deleted = client.post(delete, data={"csrf_token": csrf_token(client, delete)})
    assert deleted.status_code == 302 and deleted.headers["Location"] == f"/services/{service.id}/templates"
    listed = _text(client.get(deleted.headers["Location"]))
    assert "Sjabloon verwijderd: Herinnering" in listed and "Kopie van Herinnering" in listed
    assert ">Herinnering</a>" not in listed
    assert Template.get_by_id(original.id).archived
    assert client.get(f"/services/{service.id}/templates/{original.id}").status_code == 404
    assert AuditEvent.get(AuditEvent.action == "template.archive").before == {"name": "Herinnering", "version": 1}
    manager = create_console_user(service=service, permissions=["manage_service"])
    history = _text(signed_in_client(console_app, manager.user).get(f"/services/{service.id}/history"))
    assert "Sjabloon verwijderd" in history


def test_viewers_see_templates_but_only_template_managers_change_them(console_app, service):
    editor = _client(console_app, service)
    path = f"/services/{service.id}/templates/new/sms"
    editor.post(path, data={"csrf_token": csrf_token(editor, path), "action": "save", "name": "Code",
                            "body": "Code ((code))", "folder": ""})
    template = Template.get()
    viewer = _client(console_app, service, ["view_activity"])
    listed = _text(viewer.get(f"/services/{service.id}/templates"))
    assert ">Code</a>" in listed and "Nieuw sjabloon" not in listed and 'name="template_ids"' not in listed
    shown = _text(viewer.get(f"/services/{service.id}/templates/{template.id}"))
    assert "Eerdere versies" in shown and "Bewerken" not in shown
    for url in (f"/services/{service.id}/templates/new", f"/services/{service.id}/templates/{template.id}/edit",
                f"/services/{service.id}/templates/{template.id}/copy",
                f"/services/{service.id}/templates/{template.id}/delete"):
        assert viewer.get(url).status_code == 403, url
    outsider = _client(console_app, service, ["send_messages"])
    assert outsider.get(f"/services/{service.id}/templates").status_code == 403
    from tests.factories import create_service

    other = create_service()
    assert editor.get(f"/services/{other.id}/templates/{template.id}").status_code == 404
    mine = create_console_user(service=other, permissions=EDITOR)
    assert signed_in_client(console_app, mine.user).get(
        f"/services/{other.id}/templates/{template.id}").status_code == 404
    assert editor.get(f"/services/{service.id}/templates/not-a-uuid").status_code == 404
