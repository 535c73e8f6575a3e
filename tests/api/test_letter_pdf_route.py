"""GET /v2/notifications/<id>/pdf: the PDF once ready, and each error of the spec before that."""
from __future__ import annotations

import uuid

import pytest

from pipeline.infrastructure.storage import letter_pdf_key, letter_storage
from tests.factories import auth_headers, create_key, create_notification, create_service
from tests.responses import errors

PDF = b"%PDF-1.4\n% stored bytes\n%%EOF\n"


def get(client, key, notification_id):
    return client.get(f"/v2/notifications/{notification_id}/pdf", headers=auth_headers(key))


def stored_letter(service, **fields):
    notification = create_notification(service=service, notification_type="letter", **fields)
    letter_storage().put(letter_pdf_key(notification.id), PDF)
    return notification


def test_ready_pdf(client, service, key):
    notification = stored_letter(service, billable_units=1)
    response = get(client, key, notification.id)
    assert response.status_code == 200
    assert response.content_type == "application/pdf"
    assert response.data == PDF


def test_precompiled_once_scanned(client, service, key):
    notification = stored_letter(service, status="pending-virus-check", precompiled=True)
    assert errors(get(client, key, notification.id)) == (400, [("PDFNotReadyError",
                                                               "PDF not available yet, try again later")])
    notification.status, notification.billable_units = "created", 1
    notification.save()
    assert get(client, key, notification.id).data == PDF


def test_not_rendered_yet(client, service, key):
    rendered_not_recorded = stored_letter(service)  # stored, billable_units not yet set
    not_stored = create_notification(service=service, notification_type="letter", billable_units=1)
    for notification in (rendered_not_recorded, not_stored):
        assert errors(get(client, key, notification.id)) == (400, [("PDFNotReadyError",
                                                                   "PDF not available yet, try again later")])


@pytest.mark.parametrize("status, message", [
    ("virus-scan-failed", "File did not pass the virus scan"),
    ("technical-failure", "PDF not available for letters in technical-failure"),
])
def test_failed_letters(client, service, key, status, message):
    notification = stored_letter(service, status=status, billable_units=1)
    assert errors(get(client, key, notification.id)) == (400, [("BadRequestError", message)])


def test_validation_failed_letter_can_be_read_back(client, service, key):
    notification = stored_letter(service, status="validation-failed", billable_units=0)
    assert get(client, key, notification.id).data == PDF


@pytest.mark.parametrize("kind", ["sms", "email"])
def test_not_a_letter(client, service, key, kind):
    notification = create_notification(service=service, notification_type=kind)
    assert errors(get(client, key, notification.id)) == (400, [("BadRequestError", "Notification is not a letter")])


def test_bad_id_unknown_and_other_services(client, service, key):
    assert errors(get(client, key, "not-a-uuid")) == (400, [("ValidationError", "id is not a valid UUID")])
    assert errors(get(client, key, uuid.uuid4())) == (404, [("NoResultFound", "No result found")])
    theirs = stored_letter(create_service(), billable_units=1)
    assert errors(get(client, key, theirs.id)) == (404, [("NoResultFound", "No result found")])


def test_any_key_type_reads_it(client, service):
    notification = stored_letter(service, billable_units=1, key_type="test")
    assert get(client, create_key(service=service, key_type="team", name="team"), notification.id).data == PDF
