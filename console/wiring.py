"""The console's wiring steps, each called once by `create_console_app` (console/__init__.py) in the
order it lists them. The order is the order of the request hooks: CSRF's check runs before a request's
session is loaded, and the area blueprints' template values come before the console's own.

The areas' views are imported by `register_blueprints`, after the process is set up (logs, database,
broker) as before the steps were split: a module's import-time work runs in the same order, and a
server refuses settings that cannot work before importing any view.
"""
from __future__ import annotations

import hashlib
import logging
from typing import Any

import click
from flask import Flask, g, render_template, request
from flask_babel import Babel, format_decimal, format_percent
from flask_wtf.csrf import CSRFError, CSRFProtect

from config import Settings, email_goes_nowhere
from console import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    auth,
    security_headers,
    select_language,
    theme,
    times,
    translation_directories,
    value_names,
)
from models import platform
from models.db import database, enter_request, init_database, leave_request
from observability import logs
from pipeline.domain.errors import Misconfigured
from pipeline.infrastructure import provider_settings
from version import __version__


def start_process(settings: Settings) -> None:
    """Logs, the database handle and the broker of this process; a server refuses settings that cannot work."""
    logs.configure("console")
    if warning := email_goes_nowhere(settings):
        logging.getLogger("console").warning(warning)
    if database.obj is None:
        init_database(settings.database_url)
    if click.get_current_context(silent=True) is None:  # a server, not a `flask --app console` command
        provider_settings.refuse_to_start(settings, provider_settings.CONSOLE)
    # Binds the actors the console enqueues to (its emails) to the configured broker, and registers
    # the status-change listeners (callbacks) in the console's process too.
    import workers

    workers.wire()


def configure(app: Flask, settings: Settings) -> None:
    """The session cookie and its key, the CSRF token's life and the catalogues."""
    app.config.update(
        SETTINGS=settings,
        # Its own key, derived apart from the at-rest encryption key: one key never serves two uses.
        SECRET_KEY=hashlib.sha256(b"notify console sessions\0" + settings.secret_key.encode()).hexdigest(),
        SESSION_COOKIE_NAME="notify_console",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.admin_url.startswith("https://"),
        # The signed-in session row decides when a session ends; the CSRF token lives as long as it.
        WTF_CSRF_TIME_LIMIT=None,
        BABEL_TRANSLATION_DIRECTORIES=";".join(translation_directories()),
        BABEL_DEFAULT_LOCALE=DEFAULT_LANGUAGE,
    )


def protect_forms(app: Flask) -> None:
    """CSRF: the first before-request hook, so a forged form is refused before anything else runs."""
    CSRFProtect(app)


def translate(app: Flask) -> None:
    Babel(app, locale_selector=select_language)


def register_blueprints(app: Flask) -> None:
    from console.blueprints import BLUEPRINTS  # every area's views: imported once the process is set up

    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)


def open_requests(app: Flask) -> None:
    """Each request (but a static file's) gets the database, its language and its signed-in session."""

    @app.before_request
    def _connect() -> None:
        # A static file needs no database and must never set a cookie: the browser fetches one late
        # (the favicon) with the cookie of the page before, and that answer would overwrite the newer one.
        if request.endpoint in ("static", theme.ENDPOINT):
            g.user = None
            return
        g.connection_was_open = enter_request()
        # The console's own emails and texts this request sends go in the page's language.
        platform.set_language(select_language())
        auth.load_session()


def close_requests(app: Flask) -> None:
    @app.teardown_request
    def _disconnect(exc: BaseException | None) -> None:
        leave_request(g.get("connection_was_open", True))


def add_security_headers(app: Flask, settings: Settings) -> None:
    served_over_https = settings.admin_url.startswith("https://")

    @app.after_request
    def _headers(response: Any) -> Any:
        return security_headers.add(response, https=served_over_https)


def add_template_helpers(app: Flask, settings: Settings, theme_values: dict[str, Any]) -> None:
    """What every page's template may use: the signed-in user, the language, and filters for figures and times."""
    from console.messages.labels import status_label
    from pipeline.domain.recipients import written_phone_number, written_recipient

    @app.context_processor
    def _globals() -> dict[str, Any]:
        return {"current_user": auth.current_user(), "languages": LANGUAGES, "language": select_language(),
                "settings": settings, "api_url": settings.base_url, **theme_values}

    # Figures in the reader's language: 1.234 and 12,5% in Dutch, 1,234 and 12.5% in English.
    app.jinja_env.filters["number"] = format_decimal
    app.jinja_env.filters["percent"] = lambda value: format_percent(value, "#,##0.0%")
    # Times in the service's zone, named ("26 nov 2026 07:00 CET"): console/times.py.
    app.jinja_env.filters["when"] = times.when
    app.jinja_env.filters["day"] = times.day
    # Stored values (a channel, key type, permission, status, provider) by the names a person reads.
    app.jinja_env.globals["value_name"] = value_names.value_name
    # A message's status (one wording per status per channel) and its recipient (a phone number written one
    # way), as the downloads and emails word them too: pipeline/domain/message_words.py, recipients.
    app.jinja_env.globals["status_label"] = status_label
    app.jinja_env.globals["recipient"] = written_recipient
    app.jinja_env.filters["phone"] = written_phone_number
    # The release, in every page's footer (version.py).
    app.jinja_env.globals["release"] = __version__  # not "version": the template pages have a version of their own


def _error_page(code: int, template: str):  # noqa: ANN202
    return lambda error: (render_template(template, path=request.path), code)


def register_error_pages(app: Flask) -> None:
    app.register_error_handler(403, _error_page(403, "errors/403.html"))
    app.register_error_handler(404, _error_page(404, "errors/404.html"))
    app.register_error_handler(429, _error_page(429, "errors/429.html"))
    app.register_error_handler(CSRFError, _error_page(400, "errors/csrf.html"))
    # Settings that cannot work (pipeline/infrastructure/provider_settings.py) are named, never a 500: 409,
    # as the API answers.
    app.register_error_handler(Misconfigured, lambda error: (
        render_template("errors/misconfigured.html", problems=error.messages), 409))
