"""Every check of a send, wherever it starts: a request at a door (pipeline/stages/sends/sending.py,
pipeline/stages/sends/letters.py), a job's file (pipeline/stages/jobs/upload.py) or the next step of a
fallback chain (pipeline/stages/fallback.py), which a worker runs and which cannot reach core.
Permission, template, recipient, trial mode and the team key, content, and the senders it names. Each
raises pipeline.domain.errors' refusals in the spec's words."""
from __future__ import annotations

from config import get_settings
from models.cache import cached
from models.service import GuestListEntry, LetterContact, ReplyToAddress, Service, SmsSender, TeamMember, default_of
from models.template import TemplateVersion, contact_block_of, find_version
from models.user import ServiceUser, User
from pipeline.domain.cost import sms_too_long, sms_too_long_message
from pipeline.domain.errors import BadRequestError, NotPermitted, Refusal, ValidationError
from pipeline.domain.letters.content import letter_texts
from pipeline.domain.recipients import (
    AddressErrors,
    InvalidRecipient,
    PostalAddress,
    Recipient,
    recipient_of,
    validate_postal_address,
)
from pipeline.domain.recipients.email_address import format_email_for_comparison
from pipeline.domain.recipients.phone import format_phone_for_comparison
from pipeline.domain.refusals import email_too_long_message, missing_personalisation_message, not_allowed_message
from pipeline.domain.rendering import Rendered, missing_personalisation, render

TEAM_KEY_REFUSAL = Refusal("team_key_recipient", "Cannot send to this recipient using a team-only API key.")


def check_permission(service: Service, channel: str) -> None:
    if not service.has_permission(channel):
        raise BadRequestError(not_allowed_message(channel))


def find_template(service: Service, template_id: str, channel: str) -> TemplateVersion:
    """The template's current version; an archived template is not found."""
    version = cached(("template", service.id, template_id), lambda: find_version(service, template_id))
    if version is None:
        raise BadRequestError("Template not found")
    if version.template.template_type != channel:
        raise BadRequestError(
            f"{version.template.template_type} template is not suitable for {channel} notification"
        )
    return version


def recipient(channel: str, value: str) -> Recipient:
    """The sms or email recipient, refused in the words of its field."""
    field = "phone_number" if channel == "sms" else "email_address"
    try:
        return recipient_of(channel, value)
    except InvalidRecipient as exc:
        raise ValidationError(exc.message.about(field)) from None


def check_recipient_allowed(service: Service, key_type: str, channel: str, normalised: str) -> None:
    """Trial services and team keys reach only the team and the guest list; test keys reach anyone."""
    if key_type == "test" or not (key_type == "team" or service.trial_mode):
        return
    compare = format_email_for_comparison if channel == "email" else format_phone_for_comparison
    if compare(normalised) in team_and_guest_list(service, channel):
        return
    if key_type == "team":
        raise BadRequestError(TEAM_KEY_REFUSAL)
    raise BadRequestError(trial_mode_message())


def checked_render(channel: str, version: TemplateVersion, values: dict, sanitise_keys: list[str]) -> Rendered:
    """An sms or email filled in with values, refused when a placeholder has no value or it is too long."""
    missing = missing_personalisation([version.subject or "", version.body], values)
    if missing:
        raise BadRequestError(missing_personalisation_message(missing))
    rendered = render(channel, version.body, version.subject, values, sanitise_keys=sanitise_keys)
    if channel == "sms" and sms_too_long(rendered.body):
        raise BadRequestError(sms_too_long_message(len(rendered.body)))
    too_long = email_too_long_message(rendered.body, rendered.subject) if channel == "email" else None
    if too_long:
        raise BadRequestError(too_long)
    return rendered


def check_letter_key_and_mode(service: Service, key_type: str) -> None:
    if key_type == "team":
        raise NotPermitted("Cannot send letters with a team api key")
    if service.trial_mode and key_type != "test":
        raise BadRequestError(trial_letters_message())


def _contact_block(service: Service, version: TemplateVersion, letter_contact_id: str | None) -> str | None:
    if not letter_contact_id:
        return contact_block_of(version)
    contact = LetterContact.get_or_none((LetterContact.id == letter_contact_id) & (LetterContact.service == service))
    if contact is None:
        raise BadRequestError(
            f"letter_contact_id {letter_contact_id} does not exist in database for service id {service.id}")
    return contact.contact_block


def letter_content(service: Service, template_id: str, values: dict,
                   letter_contact_id: str | None = None) -> tuple[TemplateVersion, PostalAddress, str | None]:
    """A letter's template version, checked address and contact block, refused as a send is."""
    version = find_template(service, template_id, "letter")
    try:
        address = validate_postal_address(values)
    except AddressErrors as errors:
        raise ValidationError(*errors.messages) from None
    contact_block = _contact_block(service, version, letter_contact_id)
    missing = missing_personalisation(letter_texts(version, contact_block or ""), values)
    if missing:
        raise BadRequestError(missing_personalisation_message(missing))
    return version, address, contact_block


def default_reply_to(service: Service) -> str | None:
    """The reply-to address of an email that names none: the service's default, if it has one."""
    default = cached(("reply-to", service.id), lambda: default_of(ReplyToAddress, service))
    return default.email_address if default else None


def sms_sender(service: Service, sms_sender_id: str | None) -> str:
    if sms_sender_id:
        sender = SmsSender.get_or_none((SmsSender.id == sms_sender_id) & (SmsSender.service == service))
        if sender is None:
            raise BadRequestError(f"sms_sender_id {sms_sender_id} does not exist in database for service id")
        return sender.sms_sender
    default = cached(("sms-sender", service.id), lambda: default_of(SmsSender, service))
    return default.sms_sender if default else get_settings().default_sms_sender


def reply_to(service: Service, email_reply_to_id: str | None) -> str | None:
    if email_reply_to_id:
        found = ReplyToAddress.get_or_none(
            (ReplyToAddress.id == email_reply_to_id) & (ReplyToAddress.service == service)
        )
        if found is None:
            raise BadRequestError(
                f"email_reply_to_id {email_reply_to_id} does not exist in database for service id {service.id}"
            )
        return found.email_address
    return default_reply_to(service)


def team_and_guest_list(service: Service, channel: str) -> set[str]:
    """The recipients in comparison form (format_*_for_comparison) the service may always reach."""
    if channel == "email":
        team = {format_email_for_comparison(m.email_address)
                for m in TeamMember.select().where(TeamMember.service == service) if m.email_address}
        # The service's console members are its team too, by their account's address...
        team |= {format_email_for_comparison(u.email_address) for u in
                 User.select(User.email_address).join(ServiceUser).where(ServiceUser.service == service)}
    else:
        team = {format_phone_for_comparison(m.mobile_number)
                for m in TeamMember.select().where(TeamMember.service == service) if m.mobile_number}
        # ... and by the mobile number their account confirmed with a code (core/account_settings.py).
        team |= {format_phone_for_comparison(u.mobile_number) for u in
                 User.select(User.mobile_number).join(ServiceUser).where(ServiceUser.service == service)
                 if u.mobile_number}
    guests = {g.recipient for g in GuestListEntry.select().where(GuestListEntry.service == service)}
    return team | guests


def trial_mode_message() -> Refusal:
    return Refusal("trial_mode_recipient", "Cannot send to this recipient when service is in trial mode - "
                   f"see {get_settings().admin_url}/trial-mode")


def trial_letters_message() -> Refusal:
    return Refusal("trial_mode_letters",
                   f"Cannot send letters when service is in trial mode - see {get_settings().admin_url}/trial-mode")
