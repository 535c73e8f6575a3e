"""Template folders through the admin API: the same functions as the console's template list."""
from __future__ import annotations

import uuid

import pytest

from models.audit import AuditEvent
from tests.admin_helpers import admin_headers, errors, post_service


@pytest.fixture
def service(client):
    return post_service(client, permissions=["email", "sms", "letter"])


def _url(service, *parts):
    return "/".join([f"/admin/services/{service['id']}/template-folders", *parts])


def _post(client, url, body):
    return client.post(url, json=body, headers=admin_headers())


def _template(client, service, name):
    response = _post(client, f"/admin/services/{service['id']}/templates", {"name": name, "type": "sms", "body": "Hi"})
    assert response.status_code == 201
    return response.get_json()["id"]


def test_folders_nest_are_listed_parent_first_renamed_and_deleted_when_empty(client, service):
    outer = _post(client, _url(service), {"name": " Letters "})
    assert outer.status_code == 201
    outer = outer.get_json()
    assert (outer["name"], outer["parent_id"]) == ("Letters", None)
    inner = _post(client, _url(service), {"name": "Reminders", "parent_id": outer["id"]}).get_json()
    assert inner["parent_id"] == outer["id"]
    listed = client.get(_url(service), headers=admin_headers()).get_json()
    assert listed == {"template_folders": [outer, inner]}

    renamed = _post(client, _url(service, inner["id"]), {"name": "Notices"})
    assert renamed.get_json() == {**inner, "name": "Notices"}

    template_id = _template(client, service, "Due")
    moved = _post(client, _url(service, "move"), {"template_ids": [template_id], "folder_id": inner["id"]})
    assert moved.get_json() == {"moved": 1}
    assert errors(client.delete(_url(service, inner["id"]), headers=admin_headers())) == (
        400, [("ValidationError", "Only an empty folder can be deleted")])
    assert errors(client.delete(_url(service, outer["id"]), headers=admin_headers())) == (
        400, [("ValidationError", "Only an empty folder can be deleted")])
    _post(client, _url(service, "move"), {"template_ids": [template_id], "folder_id": None})
    assert client.delete(_url(service, inner["id"]), headers=admin_headers()).status_code == 204
    assert client.delete(_url(service, outer["id"]), headers=admin_headers()).status_code == 204
    assert client.get(_url(service), headers=admin_headers()).get_json() == {"template_folders": []}
    assert [e.action for e in AuditEvent.select().where(AuditEvent.action.startswith("template"))
            .order_by(AuditEvent.created_at, AuditEvent.id)] == [
        "template_folder.create", "template_folder.create", "template_folder.rename", "template.create",
        "template.move", "template.move", "template_folder.delete", "template_folder.delete"]


def test_bad_requests_are_refused_with_the_problem(client, service):
    other = post_service(client, name="Other office")
    theirs = _post(client, _url(other), {"name": "Theirs"}).get_json()
    assert errors(_post(client, _url(service), {"name": "  "})) == (400, [("ValidationError", "name cannot be blank")])
    assert errors(_post(client, _url(service), {"name": "x", "parent_id": theirs["id"]})) == (
        400, [("ValidationError", "parent_id is not a folder of this service")])
    assert _post(client, _url(service, theirs["id"]), {"name": "Mine"}).status_code == 404
    assert client.delete(_url(service, "not-a-uuid"), headers=admin_headers()).status_code == 404
    their_template = _template(client, other, "Theirs")
    assert errors(_post(client, _url(service, "move"), {"template_ids": [their_template], "folder_id": None})) == (
        400, [("ValidationError", "template_ids are not templates of this service")])
    assert errors(_post(client, _url(service, "move"), {"template_ids": [], "folder_id": None})) == (
        400, [("ValidationError", "Choose at least one template to move")])
    assert errors(_post(client, _url(service, "move"), {"template_ids": [str(uuid.uuid4())],
                                                         "folder_id": theirs["id"]})) == (
        400, [("ValidationError", "folder_id is not a folder of this service")])
    assert client.get(f"/admin/services/{uuid.uuid4()}/template-folders", headers=admin_headers()).status_code == 404
