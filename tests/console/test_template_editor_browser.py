"""The template pages in a real browser, each checked with axe-core: write a template with placeholders
and see the live preview follow the typing (email HTML, the sms counter with a UCS-2 character, the
letter's page images), save, edit into a second version, compare, file it in a folder."""
from __future__ import annotations

from models.service import LetterContact
from models.template import Template, TemplateVersion
from tests.console.browser import assert_accessible


def _open(page, path: str) -> None:
    response = page.goto(path)
    assert response.status == 200, path
    assert_accessible(page)


def _typed(page, selector: str, text: str) -> None:
    page.locator(selector).fill("")
    page.locator(selector).press_sequentially(text, delay=5)


def test_write_an_email_template_and_watch_the_preview(signed_in_member, service):
    page = signed_in_member
    _open(page, f"/services/{service.id}/templates")
    assert "Deze dienst heeft nog geen sjablonen." in page.inner_text("main")
    page.get_by_role("link", name="Nieuw sjabloon", exact=True).click()
    assert_accessible(page)
    page.get_by_label("E-mail").check()
    page.get_by_role("button", name="Doorgaan").click()
    page.wait_for_url("**/templates/new/email")
    assert_accessible(page)
    page.fill("#name", "Afspraak")
    _typed(page, "#subject", "Uw afspraak")
    _typed(page, "#body", "Beste ((naam)),\n\n* op ((datum))\n* in het stadhuis")
    frame = page.frame_locator("iframe.notify-preview__email")
    frame.locator("li", has_text="in het stadhuis").wait_for()
    assert frame.locator("mark").all_inner_texts() == ["((naam))", "((datum))"]
    assert page.locator(".notify-preview__placeholders").inner_text() == "Invulvelden: ((naam)) ((datum))"
    page.screenshot(path="/tmp/tmpl-email-editor.png", full_page=True)
    assert_accessible(page)
    page.get_by_role("button", name="Opslaan").click()
    page.wait_for_url(f"**/templates/{Template.get().id}")
    assert page.inner_text("h1") == "Afspraak"
    page.frame_locator("iframe.notify-preview__email").locator("li", has_text="in het stadhuis").wait_for()
    page.screenshot(path="/tmp/tmpl-email-show.png", full_page=True)
    assert_accessible(page)

    page.get_by_role("link", name="Bewerken").click()
    page.wait_for_url("**/edit")
    _typed(page, "#body", "Beste ((naam)),\n\nTot ((datum)).")
    page.get_by_role("button", name="Opslaan").click()
    page.get_by_role("link", name="Eerdere versies").click()
    assert_accessible(page)
    page.get_by_role("link", name="Vergelijken met versie 1").click()
    assert page.inner_text("h1") == "Versie 1 en versie 2"
    assert page.locator("ins").all_text_contents() == ["Toegevoegd: Tot ((datum))."]
    page.screenshot(path="/tmp/tmpl-compare.png", full_page=True)
    assert_accessible(page)
    page.get_by_role("link", name="Terug naar de versies").click()
    page.get_by_role("link", name="Versie 1", exact=True).click()
    assert "Dit is versie 1, een eerdere versie van dit sjabloon." in page.inner_text("main")
    assert_accessible(page)


def test_the_sms_counter_follows_the_typing_and_names_the_unicode_character(signed_in_member, service):
    page = signed_in_member
    _open(page, f"/services/{service.id}/templates/new/sms")
    page.fill("#name", "Code")
    _typed(page, "#body", "Uw code is ((code))")
    page.locator("#sms-count", has_text="19 tekens, 1 sms").wait_for()
    assert page.locator("#sms-unicode").count() == 0
    page.locator("#body").press("End")
    page.locator("#body").press_sequentially(" – tot ziens", delay=5)  # an en dash is not GSM-7
    page.locator("#sms-count", has_text="31 tekens, 1 sms").wait_for()
    assert page.locator("#sms-unicode code").all_inner_texts() == ["–"]
    assert page.locator(".notify-preview__sms mark").all_inner_texts() == ["((code))"]
    page.locator("#body").press_sequentially(" " + "x" * 40, delay=1)
    page.locator("#sms-count", has_text="72 tekens, 2 sms'en").wait_for()
    page.screenshot(path="/tmp/tmpl-sms-editor.png", full_page=True)
    assert_accessible(page)


def test_a_letter_preview_shows_its_pages_and_the_folder_tree(signed_in_member, service):
    LetterContact.create(service=service, contact_block="Gemeente Voorbeeld\nPostbus 1", is_default=True)
    page = signed_in_member
    _open(page, f"/services/{service.id}/templates/folders/new")
    page.fill("#name", "Brieven")
    page.get_by_role("button", name="De map maken").click()
    page.wait_for_url(f"**/services/{service.id}/templates")
    page.get_by_role("link", name="Nieuw sjabloon hier Brieven").click()
    page.get_by_label("Brief").check()
    page.get_by_role("button", name="Doorgaan").click()
    page.wait_for_url("**/templates/new/letter?folder=*")
    assert page.locator("img.notify-preview__page").count() == 1  # the empty letter already has its page
    page.fill("#name", "Aanslag")
    _typed(page, "#subject", "Uw aanslag")
    page.locator("#body").fill("Beste ((naam)),\n\n" + "Een regel tekst.\n\n" * 45)
    page.locator("#body").press("End")
    page.locator("#body").press_sequentially("Groet", delay=5)
    page.locator('img[alt="Pagina 2 van 2 van de brief"]').wait_for()
    size = page.locator("img.notify-preview__page").first.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    assert size == [794, 1123]  # A4 at 96 dpi
    page.screenshot(path="/tmp/tmpl-letter-editor.png", full_page=True)
    assert_accessible(page)
    page.get_by_role("button", name="Opslaan").click()
    page.wait_for_url(f"**/templates/{Template.get().id}")
    assert TemplateVersion.get().postage == "second"
    page.get_by_role("link", name="Terug naar sjablonen").click()
    assert "Aanslag" in page.locator(f"#folder-{Template.get().folder_id}").inner_text()
    page.screenshot(path="/tmp/tmpl-list.png", full_page=True)
    assert_accessible(page)
    page.get_by_label("Kies Aanslag").check()
    page.get_by_label("De gekozen sjablonen verplaatsen naar").select_option(label="Sjablonen (hoogste niveau)")
    page.get_by_role("button", name="Verplaatsen").click()
    assert "Sjablonen verplaatst: 1" in page.inner_text("main")
    assert "Deze map is leeg." in page.locator(".notify-folder-tree").inner_text()
    assert Template.get().folder_id is None


def test_the_folder_delete_and_copy_pages_are_accessible_in_english(signed_in_member, service):
    from core.template_folders import add_folder
    from core.templates import add_template

    folder = add_folder(str(service.id), name="Letters")
    template = add_template(str(service.id), template_type="sms", name="Reminder", body="See you ((day))").template
    page = signed_in_member
    page.goto(f"/language/en?next=/services/{service.id}/templates")
    assert page.inner_text("h1") == "Templates"
    assert_accessible(page)
    _open(page, f"/services/{service.id}/templates/folders/{folder.id}")
    assert page.inner_text("h1") == "Folder Letters"
    page.get_by_role("button", name="Delete the folder").click()
    assert "Folder deleted: Letters" in page.inner_text("main")
    _open(page, f"/services/{service.id}/templates/{template.id}/copy")
    assert page.input_value("#name") == "Copy of Reminder"
    assert page.inner_text("#sms-count") == "15 characters, 1 text message"
    _open(page, f"/services/{service.id}/templates/{template.id}/delete")
    page.get_by_role("button", name="Delete this template").click()
    assert "Template deleted: Reminder" in page.inner_text("main")
    assert "This service has no templates yet." in page.inner_text("main")
