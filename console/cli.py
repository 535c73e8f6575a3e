"""Console commands: `flask --app console <command>`."""
from __future__ import annotations

import click
from flask import Flask

from models.db import database


def register_console_cli(app: Flask) -> None:
    @app.cli.command("create-platform-admin-link")
    def create_platform_admin_link() -> None:
        """Print a one-time link (valid one day) that makes whoever opens it a platform admin."""
        from core.accounts import create_setup_link

        with database.connection_context():
            click.echo(create_setup_link())
