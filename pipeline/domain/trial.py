"""Who a trial-mode service (or a team key) may send to: its team and its guest list."""
from __future__ import annotations

from config import get_settings
from models.service import GuestListEntry, Service, TeamMember
from models.user import ServiceUser, User
from pipeline.domain.errors import Refusal
from pipeline.domain.recipients.email_address import format_email_for_comparison
from pipeline.domain.recipients.phone import format_phone_for_comparison


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
