"""The sending core without a request: a console user's send is validated and recorded as the API's."""
from __future__ import annotations

import uuid

import pytest

from models.notification import Notification
from pipeline.domain.errors import BadRequestError, ValidationError
from pipeline.stages.sends.letters import send_letter
from pipeline.stages.sends.sender import Sender
from pipeline.stages.sends.sending import send_notification
from tests.factories import create_sample_template, create_service


def test_a_console_users_sms_is_a_live_send_recorded_as_theirs(service):
    template = create_sample_template(service=service, body="Hello ((name))")
    user_id = uuid.uuid4()
    enqueued: list[Notification] = []
    accepted = send_notification(Sender.console_user(service, user_id), "sms",
                                 {"phone_number": "06 12345678", "template_id": str(template.id),
                                  "personalisation": {"name": "Anna"}}, enqueued.extend)
    stored = Notification.get_by_id(accepted.notification.id)
    assert (stored.key_type, stored.api_key_id, stored.created_by_user_id) == ("live", None, user_id)
    assert (stored.normalised_to, stored.body, stored.status) == ("+31612345678", "Hello Anna", "created")
    assert [n.id for n in enqueued] == [stored.id]


def test_the_core_raises_the_apis_errors(service):
    template = create_sample_template(service=service, body="Hello ((name))")
    sender = Sender.console_user(service, uuid.uuid4())
    with pytest.raises(ValidationError) as bad_number:
        send_notification(sender, "sms", {"phone_number": "12", "template_id": str(template.id),
                                          "personalisation": {"name": "A"}}, lambda rows: None)
    assert bad_number.value.messages == ["phone_number Not enough digits"]
    with pytest.raises(BadRequestError) as missing:
        send_notification(sender, "sms", {"phone_number": "0612345678", "template_id": str(template.id)},
                          lambda rows: None)
    assert missing.value.messages == ["Missing personalisation: name"]
    assert Notification.select().count() == 0


def test_a_trial_service_refuses_a_console_letter_as_a_live_key():
    service = create_service(trial_mode=True, permissions=["letter"])
    template = create_sample_template(service=service, template_type="letter", body="Hello")
    with pytest.raises(BadRequestError) as refused:
        send_letter(Sender.console_user(service, uuid.uuid4()),
                    {"template_id": str(template.id), "personalisation": {
                        "address_line_1": "A. Jansen", "address_line_2": "Kerkstraat 1",
                        "address_line_3": "1234 AB Utrecht"}},
                    lambda notification: None)
    assert refused.value.messages[0].startswith("Cannot send letters when service is in trial mode - see ")
