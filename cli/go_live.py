"""A service's request to go live: approved (or a service taken live without one) or turned down."""
from __future__ import annotations

import click
from flask import Flask

from cli.admin_requests import ask_admin_api


def register(app: Flask) -> None:
    @app.cli.command("go-live")
    @click.option("--service-id", required=True)
    def go_live_command(service_id: str) -> None:
        """Take a service out of trial mode (approving its request, if one waits) and tell its team."""
        ask_admin_api(app, "POST", f"/services/{service_id}/go-live/approve")

    @app.cli.command("reject-go-live")
    @click.option("--service-id", required=True)
    @click.option("--reason", required=True, help="Told to the service's team.")
    def reject_go_live(service_id: str, reason: str) -> None:
        """Turn down a service's waiting request to go live."""
        ask_admin_api(app, "POST", f"/services/{service_id}/go-live/reject", {"reason": reason})
