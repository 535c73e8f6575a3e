"""Amazon SES events through SNS: emails go out over SMTP (a real relay standing in for SES's SMTP
interface), SES's notifications come back as SNS posts them, signed (tests/fake_sns.py), to the live
app; a real worker applies them and confirms subscriptions. Forged or unverifiable messages: 403,
nothing changed."""
from __future__ import annotations

import dataclasses
import json
import time
import uuid

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from prometheus_client import REGISTRY

import config
from models.notification_event import NotificationEvent
from pipeline.infrastructure.providers.email.ses import UnknownSesEvent, event_from_ses
from pipeline.infrastructure.providers.email.sns import canonical_string
from tests.conftest import status_of, wait_for
from tests.fake_sns import TOPIC, FakeSns, issue, pem, self_signed
from tests.test_callbacks import receiver, register  # noqa: F401  (receiver: a fixture)
from tests.test_email_events import send_email, service, smtp  # noqa: F401  (fixtures)

ENDPOINT = "/providers/ses/sns"


@pytest.fixture
def sns(tmp_path, smtp):  # noqa: F811
    with FakeSns(tmp_path) as fake:
        before = config.get_settings()
        config._settings = dataclasses.replace(before, sns_host_pattern=fake.host_pattern,
                                               sns_ca_file=str(fake.ca_file),
                                               sns_signing_ca_file=str(fake.signing_ca_file))
        try:
            yield fake
        finally:
            config._settings = before


def sent(smtp, notification_ids: list[str]) -> dict[str, str]:  # noqa: F811
    """Notification id -> the Message-ID header of the email as the relay received it."""
    received = smtp.wait_for_messages(len(notification_ids))
    by_id = {}
    for email in received:
        message_id = str(email.message["Message-ID"])
        [notification_id] = [each for each in notification_ids if each in message_id]
        by_id[notification_id] = message_id
    wait_for(lambda: {status_of(each) for each in notification_ids} == {"sending"})
    return by_id


def ses_event(kind: str, message_id: str, *, event_publishing: bool = False, **details) -> dict:
    """An SES notification as its documentation shows it: SES's own messageId, our headers kept."""
    timestamp = "2026-11-23T10:00:00.000Z"
    mail = {"timestamp": timestamp, "source": "tax.office@notify.localhost",
            "messageId": f"0102{uuid.uuid4().hex}-000000",
            "destination": ["someone@example.nl"], "headersTruncated": False,
            "headers": [{"name": "From", "value": "tax.office@notify.localhost"},
                        {"name": "To", "value": "someone@example.nl"},
                        {"name": "Message-ID", "value": message_id}],
            "commonHeaders": {"from": ["tax.office@notify.localhost"], "to": ["someone@example.nl"],
                              "messageId": message_id, "subject": "Hello"}}
    if event_publishing:  # a configuration set's event destination
        mail["tags"] = {"ses:configuration-set": ["notify"]}
    body = {("eventType" if event_publishing else "notificationType"): kind, "mail": mail}
    if kind == "Bounce":
        body["bounce"] = {"bounceType": details.get("bounce_type", "Permanent"), "bounceSubType": "General",
                          "bouncedRecipients": [{"emailAddress": "someone@example.nl", "status": "5.1.1",
                                                 "action": "failed", "diagnosticCode": details.get("diagnostic")}],
                          "timestamp": timestamp, "feedbackId": "0102-feedback"}
    elif kind == "Complaint":
        body["complaint"] = {"complainedRecipients": [{"emailAddress": "someone@example.nl"}], "timestamp": timestamp,
                             "feedbackId": "0102-complaint", "complaintFeedbackType": details.get("feedback_type")}
    elif kind == "Delivery":
        body["delivery"] = {"timestamp": timestamp, "processingTimeMillis": 546, "recipients": ["someone@example.nl"],
                            "smtpResponse": "250 ok", "reportingMTA": "a8-70.smtp-out.amazonses.com"}
    else:
        body[kind.lower()] = {"timestamp": timestamp}
    return body


def post(live_server: str, message) -> requests.Response:
    # SNS posts JSON as text/plain, with its type in a header.
    body = message if isinstance(message, str) else json.dumps(message)
    kind = message.get("Type", "") if isinstance(message, dict) else ""
    return requests.post(f"{live_server}{ENDPOINT}", data=body.encode(), timeout=10,
                         headers={"Content-Type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": str(kind)})


def test_bounces_complaint_and_delivery_signed_v1_and_v2_reach_the_notifications(
        service, receiver, live_server, worker, smtp, sns):  # noqa: F811
    register(service, receiver, "complaint")
    ids = [send_email(service, live_server) for _ in range(3)]
    permanent, temporary, delivered = ids
    message_ids = sent(smtp, ids)

    for version, event in [
        ("1", ses_event("Bounce", message_ids[permanent], diagnostic="smtp; 550 5.1.1 user unknown")),
        ("2", ses_event("Bounce", message_ids[temporary], bounce_type="Transient", event_publishing=True)),
        ("2", ses_event("Delivery", message_ids[delivered])),
    ]:
        answer = post(live_server, sns.notification(event, version=version, subject="Amazon SES Email Event"))
        assert (answer.status_code, answer.json()) == (200, {"result": "success"})
    # Answered once applied: no waiting needed.
    assert [status_of(each) for each in ids] == ["permanent-failure", "temporary-failure", "delivered"]

    answer = post(live_server, sns.notification(ses_event("Complaint", message_ids[delivered], feedback_type="abuse"),
                                                version="1"))
    assert answer.status_code == 200
    [complaint] = receiver.wait_for(1)
    event = NotificationEvent.get(NotificationEvent.notification_id == delivered)
    assert (complaint.json["notification_id"], complaint.json["complaint_id"]) == (delivered, str(event.id))
    assert complaint.json["complaint_type"] == "abuse"
    assert complaint.json["complaint_date"] == "2026-11-23T10:00:00.000000Z"
    assert status_of(delivered) == "delivered"  # a complaint changes no status
    assert sns.certificate_fetches == 1  # one certificate, fetched once for every message
    assert sns.issuer_fetches == 1  # its issuing CA, named in it, fetched once to check the chain


def test_a_subscription_is_confirmed_at_its_subscribe_url(live_server, worker, sns):
    confirmation = sns.subscription_confirmation(version="2")
    answer = post(live_server, confirmation)
    assert (answer.status_code, answer.json()) == (200, {"result": "success"})
    [visit] = wait_for(lambda: sns.confirmations)
    assert visit["Token"] == [confirmation["Token"]] and visit["TopicArn"] == [TOPIC]
    assert post(live_server, sns.sign({**confirmation, "Type": "UnsubscribeConfirmation"}, "1")).status_code == 200
    time.sleep(0.3)
    assert len(sns.confirmations) == 1  # an unsubscription is only logged


def test_an_ses_event_we_do_not_act_on_is_acknowledged_and_changes_nothing(service, live_server, worker, smtp, sns):
    [notification_id] = ids = [send_email(service, live_server)]
    message_ids = sent(smtp, ids)
    for event in (ses_event("Open", message_ids[notification_id], event_publishing=True),
                  {"notificationType": "AmazonSnsSubscriptionSucceeded", "message": "You have subscribed"}):
        assert post(live_server, sns.notification(event)).status_code == 200
    assert status_of(notification_id) == "sending"


def _other_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


BAD, HOST, CERTIFICATE = "bad-signature", "disallowed-host", "bad-certificate"
ELSEWHERE = "https://sns.eu-west-1.amazonaws.com.example.nl/SimpleNotificationService-1.pem"


def _signed_by_self_signed_certificate(sns, event):
    """Signed, and its certificate served at an SNS address, but the certificate vouches for itself."""
    key = _other_key()
    return sns.notification(event, key=key, certificate_url=sns.serve(pem(self_signed(key, "sns.amazonaws.com"))))


def _signed_under_an_untrusted_ca(sns, event):
    """A whole chain, served with the certificate, up to a root CA the service was not told to trust."""
    root_key, key = _other_key(), _other_key()
    root = self_signed(root_key, "Fake Amazon Root CA 1", ca=True)
    intermediate_key = _other_key()
    intermediate = issue(root_key, root, intermediate_key, "Fake Amazon RSA 2048 M01", ca=True)
    certificate = issue(intermediate_key, intermediate, key, "sns.amazonaws.com")
    return sns.notification(event, key=key, certificate_url=sns.serve(pem(certificate, intermediate, root)))


def _signed_with_a_certificate_that_names_no_issuer(sns, event):
    """Issued by the trusted hierarchy's intermediate, but served alone and naming no caIssuers."""
    key = _other_key()
    certificate = issue(sns.intermediate_key, sns.intermediate, key, "sns.amazonaws.com")
    return sns.notification(event, key=key, certificate_url=sns.serve(pem(certificate)))


def _changed(sns, event):
    signed = sns.notification(event)
    return {**signed, "Message": json.dumps({**event, "bounce": {**event["bounce"], "bounceType": "Transient"}})}


# (what is wrong, the reason counted and answered) -> the message, made from a bounce SES would send
FORGERIES = {
    ("signed with another key", BAD): lambda sns, event: sns.notification(event, key=_other_key()),
    ("message changed after signing", BAD): _changed,
    ("subject added after signing", BAD): lambda sns, event: {**sns.notification(event), "Subject": "Added"},
    ("no signature", BAD): lambda sns, event: {
        name: value for name, value in sns.notification(event).items() if name != "Signature"},
    ("signature not base64", BAD): lambda sns, event: {**sns.notification(event), "Signature": "not base64!"},
    ("version 1 signature labelled 2", BAD): lambda sns, event: {
        **sns.notification(event, version="1"), "SignatureVersion": "2"},
    ("unknown signature version", BAD): lambda sns, event: {**sns.notification(event), "SignatureVersion": "3"},
    ("certificate on a host the pattern refuses", HOST): lambda sns, event: sns.notification(
        event, certificate_url=ELSEWHERE),
    ("certificate over plain http", HOST): lambda sns, event: sns.notification(
        event, certificate_url=sns.url.replace("https://", "http://") + "/SimpleNotificationService-1.pem"),
    ("certificate URL with a user name", HOST): lambda sns, event: sns.notification(
        event, certificate_url=sns.url.replace("https://", "https://user@") + "/SimpleNotificationService-1.pem"),
    ("certificate that is not there", "certificate-unavailable"): lambda sns, event: sns.notification(
        event, certificate_url=f"{sns.url}/SimpleNotificationService-missing.pem"),
    ("self-signed certificate", CERTIFICATE): _signed_by_self_signed_certificate,
    ("certificate under a CA not trusted", CERTIFICATE): _signed_under_an_untrusted_ca,
    ("certificate whose chain cannot be completed", CERTIFICATE): _signed_with_a_certificate_that_names_no_issuer,
    ("unknown message type", "unknown-type"): lambda sns, event: {**sns.notification(event), "Type": "Announcement"},
    ("not JSON", "malformed"): lambda sns, event: "Type=Notification&Message=bounce",
    ("a JSON array", "malformed"): lambda sns, event: json.dumps([sns.notification(event)]),
}


@pytest.mark.parametrize("forgery", FORGERIES, ids=[name for name, _ in FORGERIES])
def test_a_forged_or_unverifiable_message_is_refused_and_changes_nothing(
        forgery, service, live_server, worker, smtp, sns, caplog):  # noqa: F811
    [notification_id] = ids = [send_email(service, live_server)]
    message_ids = sent(smtp, ids)
    counted = {"provider": "ses", "reason": forgery[1]}
    before = REGISTRY.get_sample_value("notify_provider_webhook_refusals_total", counted) or 0
    answer = post(live_server, FORGERIES[forgery](sns, ses_event("Bounce", message_ids[notification_id])))
    assert answer.status_code == 403
    assert answer.json()["errors"] == [{"error": "AuthError", "message": f"SNS message refused: {forgery[1]}"}]
    assert any("SNS message refused" in record.getMessage() for record in caplog.records)
    assert REGISTRY.get_sample_value("notify_provider_webhook_refusals_total", counted) == before + 1
    time.sleep(0.2)
    assert status_of(notification_id) == "sending"


def test_a_certificate_served_with_its_issuing_ca_needs_no_other_fetch(
        service, live_server, worker, smtp, sns):  # noqa: F811
    [notification_id] = ids = [send_email(service, live_server)]
    message_ids = sent(smtp, ids)
    key = _other_key()
    chain = pem(issue(sns.intermediate_key, sns.intermediate, key, "sns.amazonaws.com"), sns.intermediate)
    event = ses_event("Delivery", message_ids[notification_id])
    assert post(live_server, sns.notification(event, key=key, certificate_url=sns.serve(chain))).status_code == 200
    assert status_of(notification_id) == "delivered" and sns.issuer_fetches == 0


def test_the_signing_certificate_is_trusted_only_through_the_configured_cas(
        service, live_server, worker, smtp, sns):  # noqa: F811
    """By default the CAs are certifi's: the fake's own root CA is not among them, so its certificate is
    refused, though it was served over a TLS connection the service trusts."""
    config._settings = dataclasses.replace(config._settings, sns_signing_ca_file=None)
    [notification_id] = ids = [send_email(service, live_server)]
    message_ids = sent(smtp, ids)
    answer = post(live_server, sns.notification(ses_event("Delivery", message_ids[notification_id])))
    assert (answer.status_code, answer.json()["errors"][0]["message"]) == (403, "SNS message refused: bad-certificate")
    assert status_of(notification_id) == "sending"


def test_a_confirmation_with_a_subscribe_url_elsewhere_is_refused_and_never_visited(live_server, worker, sns):
    elsewhere = sns.subscription_confirmation(subscribe_url="https://attacker.example.nl/?Action=ConfirmSubscription")
    assert post(live_server, elsewhere).status_code == 403
    time.sleep(0.3)
    assert sns.confirmations == []


def test_a_topic_outside_the_allow_list_is_refused(service, live_server, worker, smtp, sns):  # noqa: F811
    config._settings = dataclasses.replace(config._settings, sns_topic_arns=(TOPIC,))
    [notification_id] = ids = [send_email(service, live_server)]
    message_ids = sent(smtp, ids)
    event = ses_event("Delivery", message_ids[notification_id])
    assert post(live_server, sns.notification(event, topic=TOPIC + "-other")).status_code == 403
    assert status_of(notification_id) == "sending"
    assert post(live_server, sns.notification(event)).status_code == 200
    assert status_of(notification_id) == "delivered"


def test_certificates_are_fetched_only_from_addresses_the_service_may_connect_to(live_server, sns):
    """The pattern admits 127.0.0.1 here, but the outbound checks still refuse loopback when it is
    not allowed (CALLBACKS_ALLOW_HTTP_LOOPBACK off): the certificate is never fetched."""
    config._settings = dataclasses.replace(config._settings, callbacks_allow_http_loopback=False)
    assert post(live_server, sns.subscription_confirmation()).status_code == 403
    assert sns.certificate_fetches == 0


def test_the_canonical_strings_are_the_documented_ones():
    notification = {"Type": "Notification", "MessageId": "m-1", "TopicArn": "arn:t", "Message": "hi\nthere",
                    "Timestamp": "2026-11-23T10:00:00.000Z", "Subject": "S", "UnsubscribeURL": "https://x",
                    "SignatureVersion": "1", "Signature": "c2ln", "SigningCertURL": "https://y"}
    assert canonical_string(notification) == (
        b"Message\nhi\nthere\nMessageId\nm-1\nSubject\nS\nTimestamp\n2026-11-23T10:00:00.000Z\n"
        b"TopicArn\narn:t\nType\nNotification\n")
    without_subject = {k: v for k, v in notification.items() if k != "Subject"}
    assert b"Subject" not in canonical_string(without_subject)
    confirmation = {**without_subject, "Type": "SubscriptionConfirmation", "Token": "tok",
                    "SubscribeURL": "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription"}
    assert canonical_string(confirmation) == (
        b"Message\nhi\nthere\nMessageId\nm-1\nSubscribeURL\nhttps://sns.eu-west-1.amazonaws.com/"
        b"?Action=ConfirmSubscription\nTimestamp\n2026-11-23T10:00:00.000Z\nToken\ntok\nTopicArn\narn:t\n"
        b"Type\nSubscriptionConfirmation\n")


def test_ses_notifications_as_email_events():
    message_id = "<4f9e0c52-2b0e-4bd5-9b0a-5f3c1a2b7e11@notify.localhost>"
    undetermined = ses_event("Bounce", message_id, bounce_type="Undetermined")
    assert event_from_ses(undetermined) == {"type": "temporary-bounce", "message_id": message_id,
                                            "timestamp": "2026-11-23T10:00:00.000Z",
                                            "detail": "Undetermined General"}
    complaint = ses_event("Complaint", message_id)
    assert event_from_ses(complaint)["type"] == "complaint" and "detail" not in event_from_ses(complaint)
    # Without the original headers only SES's own id is left: it finds no email of ours, and says so.
    headerless = ses_event("Delivery", message_id)
    headerless["mail"] = {key: value for key, value in headerless["mail"].items()
                          if key not in ("headers", "commonHeaders")}
    assert event_from_ses(headerless)["message_id"] == headerless["mail"]["messageId"]
    for unknown in ({"eventType": "Send", "mail": {}, "send": {}}, {"notificationType": "Bounce", "mail": {}},
                    {"notificationType": "Bounce", "bounce": {}}):
        with pytest.raises(UnknownSesEvent):
            event_from_ses(unknown)
