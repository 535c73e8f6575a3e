"""A service's API keys: made and rotated (each new key printed once)."""
from __future__ import annotations

import click
from flask import Flask

from cli.admin_requests import ask_admin_api


def register(app: Flask) -> None:
    @app.cli.command("create-api-key")
    @click.option("--service-id", required=True)
    @click.option("--name", required=True)
    @click.option("--key-type", required=True, help="live, team or test")
    @click.option("--expires-at", help="ISO 8601 date-time (UTC without a zone) after which the key is refused.")
    def create_api_key(service_id: str, name: str, key_type: str, expires_at: str | None) -> None:
        """Create an API key; the printed key is not shown again."""
        data = {"name": name, "key_type": key_type, **({"expires_at": expires_at} if expires_at else {})}
        ask_admin_api(app, "POST", f"/services/{service_id}/api-keys", data)

    @app.cli.command("rotate-api-key")
    @click.option("--service-id", required=True)
    @click.option("--key-id", required=True)
    @click.option("--overlap-seconds", required=True, type=int, help="How long the old key keeps working.")
    def rotate_api_key(service_id: str, key_id: str, overlap_seconds: int) -> None:
        """Replace an API key by a new one (printed once); the old one works on for the overlap."""
        ask_admin_api(app, "POST", f"/services/{service_id}/api-keys/{key_id}/rotate",
                      {"overlap_seconds": overlap_seconds})
