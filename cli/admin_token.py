"""A token for the admin API, for a script that calls it over HTTP."""
from __future__ import annotations

import click
from flask import Flask

from config import get_settings
from core.tokens import create_token


def register(app: Flask) -> None:
    @app.cli.command("admin-token")
    def admin_token() -> None:
        """Print a fresh admin JWT (valid for 30 seconds), bare so it can go into a header."""
        settings = get_settings()
        click.echo(create_token(settings.admin_client_id, settings.admin_client_secret))
