"""Services: made, listed, their appearance set and their history shown."""
from __future__ import annotations

from typing import Any

import click
from flask import Flask

from cli.admin_requests import ask_admin_api


def _split(values: str | None) -> list[str] | None:
    return None if values is None else [value.strip() for value in values.split(",") if value.strip()]


def register(app: Flask) -> None:
    @app.cli.command("create-service")
    @click.option("--name", required=True)
    @click.option("--live", is_flag=True, help="Create it out of trial mode.")
    @click.option("--permissions",
                  help="Comma-separated, e.g. email,sms,letter (default email,sms,letter,international_sms).")
    def create_service(name: str, live: bool, permissions: str | None) -> None:
        """Create a service (in trial mode unless --live)."""
        data: dict[str, Any] = {"name": name, "trial_mode": not live}
        if permissions is not None:
            data["permissions"] = _split(permissions)
        ask_admin_api(app, "POST", "/services", data)

    @app.cli.command("set-appearance")
    @click.option("--service-id", required=True)
    @click.option("--language", help="nl (the default) or en: what the service's recipients read.")
    @click.option("--email-brand-id", help="An email brand's id, or 'none'.")
    @click.option("--letter-brand-id", help="A letter brand's id, or 'none'.")
    def set_appearance(service_id: str, language: str | None, email_brand_id: str | None,
                       letter_brand_id: str | None) -> None:
        """Set a service's language and brands (as PATCH /admin/services/<id>/appearance)."""
        given = {"language": language, "email_brand_id": email_brand_id, "letter_brand_id": letter_brand_id}
        data = {key: None if value == "none" else value for key, value in given.items() if value is not None}
        ask_admin_api(app, "PATCH", f"/services/{service_id}/appearance", data)

    @app.cli.command("service-history")
    @click.option("--service-id", required=True)
    @click.option("--limit", type=int, help="How many changes (default as the admin API's).")
    def service_history(service_id: str, limit: int | None) -> None:
        """Every change made to a service, newest first."""
        ask_admin_api(app, "GET", f"/services/{service_id}/history", query={} if limit is None else {"limit": limit})

    @app.cli.command("list-services")
    def list_services() -> None:
        """List every service with its settings."""
        ask_admin_api(app, "GET", "/services")
