"""The landing page after sign-in: my services (a platform admin: every service)."""
from __future__ import annotations

from tests.console.browser import assert_accessible
from tests.factories import create_service


def test_a_member_sees_only_their_own_services(signed_in_member, service):
    other = create_service(name="Someone else's service")
    page = signed_in_member
    page.goto("/services")
    listed = page.inner_text("main")
    assert service.name in listed and other.name not in listed
    assert_accessible(page)


def test_a_platform_admin_sees_every_service_and_which_are_in_trial_mode(signed_in_admin, service):
    trial = create_service(name="Nieuwe dienst", trial_mode=True)
    page = signed_in_admin
    page.goto("/services")
    assert "Als platformbeheerder ziet u alle diensten." in page.inner_text("main")
    assert service.name in page.inner_text("main")
    assert "proefmodus" in page.locator("li", has_text=trial.name).inner_text()
    assert "proefmodus" not in page.locator("li", has_text=service.name).inner_text()


def test_someone_in_no_service_is_told_how_to_join(page, make_user):
    from tests.console.browser import sign_in

    user = make_user()
    sign_in(page, user)
    assert "U bent nog geen lid van een dienst." in page.inner_text("main")
