"""A service's templates."""
from __future__ import annotations

import click
from flask import Flask

from cli.admin_requests import ask_admin_api


def register(app: Flask) -> None:
    @app.cli.command("create-template")
    @click.option("--service-id", required=True)
    @click.option("--type", "template_type", required=True, help="sms, email or letter")
    @click.option("--name", required=True)
    @click.option("--body", required=True)
    @click.option("--subject", help="Email subject or letter heading.")
    @click.option("--postage", help="Letters: first, second (default), economy, europe, rest-of-world.")
    def create_template(service_id: str, template_type: str, name: str, body: str,
                        subject: str | None, postage: str | None) -> None:
        """Create a template (version 1)."""
        data = {"type": template_type, "name": name, "body": body, "subject": subject, "postage": postage}
        # Options left out are left out of the body, as an API caller would.
        ask_admin_api(app, "POST", f"/services/{service_id}/templates",
                      {k: v for k, v in data.items() if v is not None})
