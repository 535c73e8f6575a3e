"""The decorators of console/auth.py, enforced on the server on every request: a member of service A
cannot see or change service B by editing the URL, and only does what their permissions allow."""
from __future__ import annotations

import uuid

import pytest
from flask import Blueprint

from console import create_console_app
from console.auth import current_service, login_required, platform_admin_required, service_permission_required
from models.user import SERVICE_PERMISSIONS, UserSession, new_token
from tests.console.users import ConsoleUser, create_console_user
from tests.factories import create_service

probe = Blueprint("probe", __name__)


@probe.route("/probe/signed-in")
@login_required
def signed_in() -> str:
    return "signed in"


@probe.route("/probe/platform")
@platform_admin_required
def platform() -> str:
    return "platform"


def _guarded(permission: str):  # noqa: ANN202
    def view(service_id: str) -> str:
        return f"{permission} of {current_service().name}"
    view.__name__ = f"view_{permission}"
    return service_permission_required(permission)(view)


for _permission in SERVICE_PERMISSIONS:
    probe.add_url_rule(f"/probe/services/<service_id>/{_permission}", view_func=_guarded(_permission),
                       methods=["GET", "POST"])


@pytest.fixture(scope="module")
def probe_app():
    app = create_console_app()
    app.config["WTF_CSRF_ENABLED"] = False  # the probe's POSTs test the guards, not CSRF
    app.register_blueprint(probe)
    return app


def _client_of(app, user: ConsoleUser | None):  # noqa: ANN001, ANN202
    client = app.test_client()
    if user is not None:
        token, hashed = new_token()
        UserSession.create(user=user.user, token_hash=hashed)
        with client.session_transaction() as session:
            session["sid"] = token
    return client


@pytest.fixture
def two_services():
    return create_service(name="Service A"), create_service(name="Service B")


def test_signed_out_visitors_are_sent_to_sign_in(probe_app, two_services):
    a, _ = two_services
    client = _client_of(probe_app, None)
    for path in ("/probe/signed-in", "/probe/platform", f"/probe/services/{a.id}/view_activity"):
        response = client.get(path)
        assert response.status_code == 302
        assert response.headers["Location"].startswith("/sign-in?next=")


@pytest.mark.parametrize("permission", SERVICE_PERMISSIONS)
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_member_of_a_cannot_reach_b_by_editing_the_url(probe_app, two_services, permission, method):
    a, b = two_services
    member = create_console_user(service=a, permissions=list(SERVICE_PERMISSIONS))
    client = _client_of(probe_app, member)

    own = client.open(f"/probe/services/{a.id}/{permission}", method=method)
    assert own.status_code == 200 and own.get_data(as_text=True) == f"{permission} of Service A"
    other = client.open(f"/probe/services/{b.id}/{permission}", method=method)
    assert other.status_code == 404
    assert "Service B" not in other.get_data(as_text=True)


@pytest.mark.parametrize("permission", SERVICE_PERMISSIONS)
def test_each_permission_is_needed_for_its_own_pages(probe_app, two_services, permission):
    a, _ = two_services
    others = [p for p in SERVICE_PERMISSIONS if p != permission]
    without = _client_of(probe_app, create_console_user(service=a, permissions=others))
    only = _client_of(probe_app, create_console_user(service=a, permissions=[permission]))

    assert without.get(f"/probe/services/{a.id}/{permission}").status_code == 403
    assert without.post(f"/probe/services/{a.id}/{permission}").status_code == 403
    for other in others:
        assert without.get(f"/probe/services/{a.id}/{other}").status_code == 200
        assert only.get(f"/probe/services/{a.id}/{other}").status_code == 403
    assert only.get(f"/probe/services/{a.id}/{permission}").status_code == 200


def test_unknown_and_malformed_service_ids_are_not_found(probe_app, two_services):
    a, _ = two_services
    admin = _client_of(probe_app, create_console_user(platform_admin=True))
    member = _client_of(probe_app, create_console_user(service=a, permissions=list(SERVICE_PERMISSIONS)))
    for client in (admin, member):
        assert client.get(f"/probe/services/{uuid.uuid4()}/view_activity").status_code == 404
        assert client.get("/probe/services/not-a-uuid/view_activity").status_code == 404


def test_platform_admins_see_every_service_and_the_platform_pages(probe_app, two_services):
    a, b = two_services
    admin = _client_of(probe_app, create_console_user(platform_admin=True))
    for service in (a, b):
        for permission in SERVICE_PERMISSIONS:
            assert admin.get(f"/probe/services/{service.id}/{permission}").status_code == 200
    assert admin.get("/probe/platform").get_data(as_text=True) == "platform"


def test_members_are_not_platform_admins(probe_app, two_services):
    a, _ = two_services
    member = _client_of(probe_app, create_console_user(service=a, permissions=list(SERVICE_PERMISSIONS)))
    assert member.get("/probe/platform").status_code == 403
    assert member.get("/probe/signed-in").get_data(as_text=True) == "signed in"


def test_a_revoked_or_idle_session_counts_as_signed_out(probe_app, two_services):
    a, _ = two_services
    member = create_console_user(service=a, permissions=["view_activity"])
    client = _client_of(probe_app, member)
    assert client.get("/probe/signed-in").status_code == 200

    UserSession.update(last_seen_at=_hours_ago(2)).execute()
    idle = client.get("/probe/signed-in")
    assert idle.status_code == 302 and "ended=1" in idle.headers["Location"]

    again = _client_of(probe_app, member)
    assert again.get("/probe/signed-in").status_code == 200
    from models.user import revoke_sessions

    revoke_sessions(member.user)
    assert again.get("/probe/signed-in").status_code == 302


def _hours_ago(hours: int):  # noqa: ANN202
    import datetime

    from models.db import utcnow

    return utcnow() - datetime.timedelta(hours=hours)
