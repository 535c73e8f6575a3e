"""The service's own subscription (abonnement) at Open Notificaties (Notificaties API 1.0): made with
`POST /abonnement` (our address, the Authorization value Open Notificaties is to send us, the zaken
channel), read back with `GET /abonnement/{uuid}` to see whether it still holds, and what it said kept
on the link (`keep`). On creation Open Notificaties posts a test message to our address with that
value, so the link is saved before."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from config import get_settings
from models.case_event import CaseEventLink
from models.db import utcnow
from pipeline.domain import case_events as domain
from pipeline.infrastructure import zgw
from pipeline.infrastructure.zgw import Api, OutsideRoots, Refused, Unreachable
from pipeline.stages.case_events.reading import USER_REPRESENTATION_LENGTH

log = logging.getLogger(__name__)

CALLBACK_PATH = "/case-events/"


def callback_url(link: CaseEventLink) -> str:
    """The address Open Notificaties posts this link's messages to."""
    return f"{get_settings().base_url}{CALLBACK_PATH}{link.id}"


@dataclass(frozen=True)
class Found:
    """What Open Notificaties said: the state (domain.SUBSCRIPTION_*), the abonnement's URL, and the
    answer's status and problem code when it refused."""
    state: str
    url: str | None = None
    status: int | None = None
    code: str | None = None


def nrc_api(link: CaseEventLink, service_name: str) -> Api | None:
    """Open Notificaties with its credentials (the Open Zaak ones when it has none of its own)."""
    if not link.nrc_root:
        return None
    return zgw.jwt_api(zgw.NRC, link.nrc_root, link.nrc_client_id or link.client_id,
                       link.nrc_secret or link.client_secret, service_name[:USER_REPRESENTATION_LENGTH])


def _kanalen() -> list[dict[str, Any]]:
    return [{"naam": domain.ZAKEN_CHANNEL, "filters": {}}]


def register(link: CaseEventLink, callback_url: str, service_name: str) -> Found:
    """Make a new abonnement; the one before, if any, is removed once the new one holds (while both
    hold, a message comes twice and is recorded once)."""
    nrc = nrc_api(link, service_name)
    if nrc is None:
        return Found(domain.SUBSCRIPTION_MISSING)
    body = {"callbackUrl": callback_url, "auth": link.callback_auth, "kanalen": _kanalen()}
    try:
        made = zgw.request(nrc, "POST", nrc.url("abonnement"), what="abonnement", json_body=body, expect=(201,))
    except Unreachable as down:
        return Found(domain.SUBSCRIPTION_UNREACHABLE, link.subscription_url, down.status, down.code)
    except Refused as refused:
        log.warning("Open Notificaties refused the subscription of link %s: %s", link.id, refused.status)
        return Found(domain.SUBSCRIPTION_REFUSED, link.subscription_url, refused.status, refused.code)
    url = made.get("url") if isinstance(made, dict) else None
    if not zgw.under_root(url, nrc.root):
        return Found(domain.SUBSCRIPTION_REFUSED, link.subscription_url, 201, "no-url")
    if link.subscription_url and link.subscription_url != url:
        _remove(nrc, link.subscription_url)
    return Found(domain.SUBSCRIPTION_HOLDS, str(url))


def _remove(nrc: Api, url: str) -> None:
    try:
        zgw.request(nrc, "DELETE", url, what="abonnement", expect=(204,))
    except (Unreachable, Refused, OutsideRoots) as failed:
        # A subscription left behind posts each message twice: recorded once, so only noise.
        log.warning("the earlier subscription could not be removed: %s", failed)


def remove(link: CaseEventLink, service_name: str) -> None:
    """Remove the link's abonnement, as well as it can (the link goes whatever Open Notificaties says)."""
    nrc = nrc_api(link, service_name)
    if nrc is not None and link.subscription_url:
        _remove(nrc, link.subscription_url)


def check(link: CaseEventLink, callback_url: str, service_name: str) -> Found:
    """Read the abonnement back: it holds while it posts the zaken channel to our address."""
    nrc = nrc_api(link, service_name)
    if nrc is None or not link.subscription_url:
        return Found(domain.SUBSCRIPTION_MISSING)
    try:
        found = zgw.get_object(nrc, link.subscription_url, what="abonnement")
    except OutsideRoots:
        return Found(domain.SUBSCRIPTION_MISSING)
    except Unreachable as down:
        return Found(domain.SUBSCRIPTION_UNREACHABLE, link.subscription_url, down.status, down.code)
    except Refused as refused:
        state = domain.SUBSCRIPTION_MISSING if refused.status == 404 else domain.SUBSCRIPTION_REFUSED
        return Found(state, link.subscription_url, refused.status, refused.code)
    kanalen = found.get("kanalen")
    kanalen = kanalen if isinstance(kanalen, list) else []
    posts_zaken = any(isinstance(k, dict) and k.get("naam") == domain.ZAKEN_CHANNEL for k in kanalen)
    holds = found.get("callbackUrl") == callback_url and posts_zaken
    return Found(domain.SUBSCRIPTION_HOLDS if holds else domain.SUBSCRIPTION_DIFFERENT, link.subscription_url)


def keep(link: CaseEventLink, found: Found, *, checked_url: str | None = None) -> bool:
    """Keep what Open Notificaties said of the link's subscription, and when. With checked_url, only while
    the link's subscription is still that one: a check must not put back the address of an abonnement a
    re-subscription replaced meanwhile. Whether it was kept."""
    detail = {"status": found.status, "code": found.code} if found.status is not None or found.code else None
    condition = CaseEventLink.id == link.id
    if checked_url is not None:
        condition &= CaseEventLink.subscription_url == checked_url
    return CaseEventLink.update(subscription_url=found.url, subscription_state=found.state,
                                subscription_detail=detail, subscription_checked_at=utcnow()).where(
        condition).execute() == 1
