"""The Flask app: authenticates, validates, records, enqueues, answers."""
from __future__ import annotations

from flask import Flask

from api.errors import register_error_handlers
from config import get_settings


def create_app() -> Flask:
    """The web app, wired step by step (api/wiring.py); the steps' order is the request hooks' order."""
    from api import wiring
    from cli import register_cli

    settings = get_settings()
    wiring.start_process(settings)
    app = Flask(__name__, static_folder=None)
    app.json.sort_keys = False
    app.config["SETTINGS"] = settings
    wiring.register_blueprints(app)
    register_error_handlers(app)
    register_cli(app)
    wiring.add_monitoring(app)
    wiring.connect_requests(app)
    wiring.open_send_door(app)
    wiring.add_status(app, settings)
    return app


_app: Flask | None = None


def __getattr__(name: str) -> Flask:
    """`app:app`, made on first use: importing this module builds nothing (gunicorn asks for it)."""
    global _app
    if name != "app":
        raise AttributeError(name)
    if _app is None:
        _app = create_app()
    return _app
