"""A console user's own settings: name, email address (verified by a link sent to the new address),
mobile number (stored once a texted code came back; the codes live with the console's other sign-in
codes, console/accounts/second_factor.py) and password (the current one required). Rules shared
with the invitation and reset links are in core/accounts.py."""
from __future__ import annotations

import datetime
from collections.abc import Sequence

import peewee

from core.accounts import close_resets, link, set_password
from core.passwords import verify_password
from models.db import database, is_uuid, utcnow
from models.notification import Notification
from models.platform import PLATFORM_SERVICE_ID
from models.user import EmailChange, User, find_user_by_email, new_token, token_hash
from pipeline.domain.recipients import InvalidRecipient, validate_email_address, validate_phone_number
from pipeline.stages.routing import only_simulated
from workers.platform_email import send_platform_email

EMAIL_CHANGE_VALID = datetime.timedelta(hours=1)  # as a password reset link: the mailbox may be shared


class AccountError(ValueError):
    """A change that cannot be made; `kind` names why, for the console to say it in the reader's language."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def texts_reach_people() -> bool:
    """Whether a text message reaches its recipient: an SMS gateway is configured. Without one the
    simulated provider takes every text, so a code by text message could never arrive."""
    from config import get_settings

    return not only_simulated("sms", get_settings())


def codes_by_text_readable() -> bool:
    """Whether a code texted to a number can be read: it reaches the phone, or (`dev.py run` without an
    SMS gateway) the local mailbox shows the platform's texts to the platform admin."""
    from config import get_settings

    return texts_reach_people() or get_settings().local_mailbox_dir is not None


def platform_texts(limit: int = 50) -> list[Notification]:
    """The platform's own texts (codes), newest first, for the local mailbox."""
    return list(Notification.select().where((Notification.service == PLATFORM_SERVICE_ID)
                                            & (Notification.notification_type == "sms"))
                .order_by(Notification.created_at.desc()).limit(limit))


def platform_texts_among(ids: Sequence[str]) -> list[Notification]:
    """Those of the platform's own texts with these ids (the codes one browser had sent), newest first."""
    wanted = [i for i in ids if is_uuid(i)]
    if not wanted:
        return []
    return list(Notification.select().where((Notification.service == PLATFORM_SERVICE_ID)
                                            & (Notification.notification_type == "sms")
                                            & Notification.id.in_(wanted))
                .order_by(Notification.created_at.desc()))


def change_name(user: User, name: str) -> None:
    name = " ".join(name.split())
    if not name or len(name) > 255:
        raise AccountError("name")
    User.update(name=name).where(User.id == user.id).execute()


def normalised_mobile_number(raw: str) -> str:
    """The number in E.164, checked as the API checks the number of a text; AccountError("mobile") else."""
    try:
        return validate_phone_number(raw).e164
    except InvalidRecipient:
        raise AccountError("mobile") from None


def set_mobile_number(user: User, e164: str | None) -> None:
    """Store a number whose code came back, or remove it. Without a number there is no second factor by
    text message: an account using it goes back to having none chosen, and sets one up at its next sign-in."""
    with database.atomic():
        User.update(mobile_number=e164).where(User.id == user.id).execute()
        if e164 is None:
            User.update(auth_type=None).where((User.id == user.id) & (User.auth_type == "sms")).execute()


def request_email_change(user: User, new_address: str) -> None:
    """Send a link to the new address; the account's address changes only once it is followed."""
    try:
        address = validate_email_address(new_address.strip()).lower()
    except InvalidRecipient:
        raise AccountError("email") from None
    if address == user.email_address:
        raise AccountError("email-same")
    if find_user_by_email(address) is not None:
        raise AccountError("email-taken")
    token, hashed = new_token()
    with database.atomic():
        # Only the newest link works.
        EmailChange.update(used_at=utcnow()).where(
            (EmailChange.user == user) & EmailChange.used_at.is_null()).execute()
        EmailChange.create(user=user, new_email_address=address, token_hash=hashed,
                           expires_at=utcnow() + EMAIL_CHANGE_VALID)
    send_platform_email("email-change", address, {"url": link(f"/account/email/confirm/{token}")})


def find_email_change(token: str) -> EmailChange | None:
    change = EmailChange.get_or_none(EmailChange.token_hash == token_hash(token))
    if change is None or change.used_at is not None or change.expires_at <= utcnow():
        return None
    return change


def confirm_email_change(change: EmailChange) -> User:
    """Apply the change of this link, once. Reset links out for the old address stop working."""
    try:
        with database.atomic():
            claimed = (EmailChange.update(used_at=utcnow())
                       .where((EmailChange.id == change.id) & EmailChange.used_at.is_null()).execute())
            if not claimed:
                raise AccountError("link-used")
            User.update(email_address=change.new_email_address).where(User.id == change.user_id).execute()
    except peewee.IntegrityError:  # another account took the address since the link was sent
        raise AccountError("email-taken") from None
    user = User.get_by_id(change.user_id)
    close_resets(user)
    return user


def change_password(user: User, current_password: str, new_password_hash: str) -> None:
    """Set a new password when the current one is given; every session ends (the console starts a new
    one for the browser that made the change)."""
    if not verify_password(user.password_hash, current_password):
        raise AccountError("current-password")
    set_password(user, new_password_hash)
