"""The template list as a folder tree: make folders (nested), rename, delete only empty ones, move
templates between folders; each change in the service's history."""
from __future__ import annotations

import re
from html.parser import HTMLParser

from models.audit import AuditEvent
from models.template import Template, create_template
from models.template_folder import TemplateFolder
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user


def _client(console_app, service):  # noqa: ANN001, ANN202
    user = create_console_user(service=service, permissions=["view_activity", "manage_templates"])
    return signed_in_client(console_app, user.user)


def _make_folder(client, service, name: str, parent: TemplateFolder | None = None):  # noqa: ANN001, ANN202
    path = f"/services/{service.id}/templates/folders/new"
    return client.post(path, data={"csrf_token": csrf_token(client, path), "name": name,
                                   "parent": str(parent.id) if parent else ""})


class _TextOf(HTMLParser):
    """The text inside the element with a given id (nested elements included)."""

    VOID = {"input", "br", "img", "meta", "link", "hr"}

    def __init__(self, element_id: str) -> None:
        super().__init__()
        self.element_id, self.depth, self.text = element_id, 0, []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.VOID:
            return
        if self.depth or dict(attrs).get("id") == self.element_id:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in self.VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)


def text_of(page: str, element_id: str) -> str:
    parser = _TextOf(element_id)
    parser.feed(page)
    return " ".join(" ".join(parser.text).split())


def _listed(client, service) -> str:  # noqa: ANN001
    return client.get(f"/services/{service.id}/templates").get_data(as_text=True)


def test_folders_nest_and_templates_move_between_them(console_app, service):
    client = _client(console_app, service)
    made = _make_folder(client, service, "Afspraken")
    assert made.status_code == 302 and made.headers["Location"] == f"/services/{service.id}/templates"
    outer = TemplateFolder.get(TemplateFolder.name == "Afspraken")
    _make_folder(client, service, "Herinneringen", outer)
    inner = TemplateFolder.get(TemplateFolder.name == "Herinneringen")
    assert inner.parent_id == outer.id
    first = create_template(service, template_type="sms", name="Morgen", body="Tot morgen", created_by="t")
    second = create_template(service, template_type="email", name="Bevestiging", body="Ja", subject="Ja",
                             created_by="t")

    page = _listed(client, service)
    assert "Map gemaakt: Herinneringen" in page
    # The inner folder is drawn inside the outer one.
    assert "Herinneringen" in text_of(page, f"folder-{outer.id}")
    assert page.count("Deze map is leeg.") == 1  # the inner one; the outer holds a folder
    assert re.search(r'<option value="[^"]+">\u2003\u2003Herinneringen</option>', page)

    path = f"/services/{service.id}/templates/move"
    moved = client.post(path, data={"csrf_token": csrf_token(client, f"/services/{service.id}/templates"),
                                    "template_ids": [str(first.id), str(second.id)], "folder": str(inner.id)})
    assert moved.status_code == 302
    assert {t.folder_id for t in Template.select()} == {inner.id}
    page = _listed(client, service)
    assert "Sjablonen verplaatst: 2" in page and "Geen sjablonen op het hoogste niveau." in page
    filed = text_of(page, f"folder-{inner.id}")
    assert "Morgen Sms" in filed and "Bevestiging E-mail" in filed
    event = AuditEvent.get((AuditEvent.action == "template.move") & (AuditEvent.subject_id == str(first.id)))
    assert (event.before, event.after) == ({"folder_id": None}, {"folder_id": str(inner.id)})

    client.post(path, data={"csrf_token": csrf_token(client, f"/services/{service.id}/templates"),
                            "template_ids": [str(first.id)], "folder": ""})
    assert Template.get_by_id(first.id).folder_id is None

    refused = client.post(path, data={"csrf_token": csrf_token(client, f"/services/{service.id}/templates"),
                                      "folder": str(outer.id)})
    assert refused.status_code == 400
    assert "Kies minstens één sjabloon om te verplaatsen" in refused.get_data(as_text=True)


def test_a_new_template_can_start_in_a_folder(console_app, service):
    client = _client(console_app, service)
    _make_folder(client, service, "Belastingen")
    folder = TemplateFolder.get()
    chosen = client.post(f"/services/{service.id}/templates/new?folder={folder.id}", data={
        "csrf_token": csrf_token(client, f"/services/{service.id}/templates/new"), "template_type": "sms"})
    assert chosen.headers["Location"] == f"/services/{service.id}/templates/new/sms?folder={folder.id}"
    form = client.get(chosen.headers["Location"]).get_data(as_text=True)
    assert f'<option value="{folder.id}" selected>\u2003Belastingen</option>' in form
    client.post(chosen.headers["Location"], data={"csrf_token": csrf_token(client, chosen.headers["Location"]),
                                                  "action": "save", "name": "Aanslag", "body": "Uw aanslag",
                                                  "folder": str(folder.id)})
    assert Template.get().folder_id == folder.id


def test_rename_and_delete_only_an_empty_folder(console_app, service):
    client = _client(console_app, service)
    _make_folder(client, service, "Oud")
    folder = TemplateFolder.get()
    path = f"/services/{service.id}/templates/folders/{folder.id}"
    renamed = client.post(path, data={"csrf_token": csrf_token(client, path), "name": "  Nieuw  "})
    assert renamed.status_code == 302 and TemplateFolder.get_by_id(folder.id).name == "Nieuw"
    assert AuditEvent.get(AuditEvent.action == "template_folder.rename").after == {"name": "Nieuw"}
    blank = client.post(path, data={"csrf_token": csrf_token(client, path), "name": " "})
    assert "Vul een naam in voor de map" in blank.get_data(as_text=True)

    template = create_template(service, template_type="sms", name="Erin", body="x", created_by="t")
    Template.update(folder_id=folder.id).where(Template.id == template.id).execute()
    refused = client.post(f"{path}/delete", data={"csrf_token": csrf_token(client, path)})
    assert refused.status_code == 400
    assert ("Alleen een lege map kan worden verwijderd: verplaats eerst de sjablonen en mappen erin"
            in refused.get_data(as_text=True))
    Template.update(archived=True).where(Template.id == template.id).execute()  # archived ones do not count
    deleted = client.post(f"{path}/delete", data={"csrf_token": csrf_token(client, path)})
    assert deleted.status_code == 302 and TemplateFolder.select().count() == 0
    assert Template.get_by_id(template.id).folder_id is None
    assert "Map verwijderd: Nieuw" in _listed(client, service)
    assert AuditEvent.get(AuditEvent.action == "template_folder.delete").before["name"] == "Nieuw"


def test_folders_of_another_service_are_not_found(console_app, service):
    from tests.factories import create_service

    other = create_service()
    foreign = TemplateFolder.create(service=other, name="Van een ander")
    client = _client(console_app, service)
    assert client.get(f"/services/{service.id}/templates/folders/{foreign.id}").status_code == 404
    assert client.get(f"/services/{service.id}/templates/folders/nope").status_code == 404
    refused = _make_folder(client, service, "Erin", foreign)
    assert refused.status_code == 200 and TemplateFolder.select().count() == 1  # not a choice of this service
    theirs = create_template(other, template_type="sms", name="Van hen", body="x", created_by="t")
    moved = client.post(f"/services/{service.id}/templates/move", data={
        "csrf_token": csrf_token(client, f"/services/{service.id}/templates"), "template_ids": [str(theirs.id)],
        "folder": ""})
    assert moved.status_code == 400 and Template.get_by_id(theirs.id).folder_id is None
