"""The web console: its own WSGI app (`console:app`), apart from the public API.

It calls the same functions as the admin API and the CLI; only presentation lives here. One
blueprint per area (`console/<area>/views.py`), each registered by one line of console/blueprints.py's list.
"""
from __future__ import annotations

from pathlib import Path

from flask import Flask, session

from config import get_settings
from console.request_size import limit_requests

ROOT = Path(__file__).resolve().parent
LANGUAGES = {"nl": "Nederlands", "en": "English"}
DEFAULT_LANGUAGE = "nl"


def translation_directories() -> list[str]:
    """The shared catalogue and each area's own (`console/<area>/translations`), merged by Flask-Babel,
    so areas add their strings without editing one shared file."""
    return [str(ROOT / "translations")] + sorted(str(p) for p in ROOT.glob("*/translations") if p.is_dir())


def select_language() -> str:
    chosen = session.get("lang")
    return chosen if chosen in LANGUAGES else DEFAULT_LANGUAGE


def create_console_app() -> Flask:
    """The console, wired step by step (console/wiring.py); the steps' order is the request hooks' order."""
    from console import theme, wiring
    from console.cli import register_console_cli

    settings = get_settings()
    wiring.start_process(settings)
    app = Flask(__name__)
    wiring.configure(app, settings)
    wiring.protect_forms(app)
    wiring.translate(app)
    wiring.register_blueprints(app)
    register_console_cli(app)
    theme_values = theme.register(app, settings)
    wiring.open_requests(app)
    wiring.close_requests(app)
    wiring.add_security_headers(app, settings)
    wiring.add_template_helpers(app, settings, theme_values)
    wiring.register_error_pages(app)
    limit_requests(app, settings.console_max_upload_bytes)
    return app


_app: Flask | None = None


def __getattr__(name: str) -> Flask:
    """`console:app`, made on first use: importing console.auth or a model helper does not build it."""
    global _app
    if name != "app":
        raise AttributeError(name)
    if _app is None:
        _app = create_console_app()
    return _app
