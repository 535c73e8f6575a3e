"""The web console: its own WSGI app (`console:app`), apart from the public API.

It calls the same functions as the admin API and the CLI; only presentation lives here. One
blueprint per area (`console/<area>/views.py`), each registered by one line below.
"""
from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import click
from flask import Flask, g, render_template, request, session
from flask_babel import Babel, format_decimal, format_percent
from flask_wtf.csrf import CSRFError, CSRFProtect

from config import email_goes_nowhere, get_settings
from console.request_size import limit_requests
from models import platform
from models.db import database, enter_request, init_database, leave_request
from observability import logs
from pipeline.domain.errors import Misconfigured
from pipeline.infrastructure import provider_settings
from version import __version__

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
    settings = get_settings()
    logs.configure("console")
    if warning := email_goes_nowhere(settings):
        logging.getLogger("console").warning(warning)
    if database.obj is None:
        init_database(settings.database_url)
    if click.get_current_context(silent=True) is None:  # a server, not a `flask --app console` command
        provider_settings.refuse_to_start(settings, provider_settings.CONSOLE)
    app = Flask(__name__)
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
    # Binds the actors the console enqueues to (its emails) to the configured broker, and registers
    # the status-change listeners (callbacks) in the console's process too.
    import workers

    workers.wire()

    CSRFProtect(app)
    Babel(app, locale_selector=select_language)

    from console import auth, security_headers, theme, times, value_names
    from console.account_settings.views import bp as account_settings_bp
    from console.accounts.views import bp as accounts_bp
    from console.api_integration.views import bp as api_integration_bp
    from console.api_keys.views import bp as api_keys_bp
    from console.appearance.views import bp as appearance_bp
    from console.cli import register_console_cli
    from console.conversations.views import bp as conversations_bp
    from console.dashboard.views import bp as dashboard_bp
    from console.delivery_events.views import bp as delivery_events_bp
    from console.gateways.views import bp as gateways_bp
    from console.go_live.views import bp as go_live_bp
    from console.history.views import bp as history_bp
    from console.jobs.views import bp as jobs_bp
    from console.letter_upload.views import bp as letter_upload_bp
    from console.mailbox.views import bp as mailbox_bp
    from console.main.views import bp as main_bp
    from console.messages.labels import status_label
    from console.messages.views import bp as messages_bp
    from console.ops.views import bp as ops_bp
    from console.organisations.views import bp as organisations_bp
    from console.send_one.views import bp as send_one_bp
    from console.services.views import bp as services_bp
    from console.settings.views import bp as settings_bp
    from console.team.views import bp as team_bp
    from console.template_editor.views import bp as template_editor_bp
    from pipeline.domain.recipients import written_phone_number, written_recipient

    for blueprint in (
        main_bp, accounts_bp, account_settings_bp,
        services_bp, api_keys_bp, team_bp, settings_bp, go_live_bp, history_bp,  # a service's set-up
        api_integration_bp,  # what the API keys sent and how callbacks were answered
        dashboard_bp,  # dashboard and usage
        appearance_bp,  # what citizens see: language and brands
        delivery_events_bp,  # complaints, returned letters, unsubscribe requests
        template_editor_bp,  # templates in folders
        jobs_bp,  # bulk sending from a spreadsheet
        letter_upload_bp,  # a letter sent as the service's own PDF
        messages_bp,  # messages, their report, cancelling
        send_one_bp, conversations_bp,  # one-off sends; received texts and replies
        ops_bp,  # the worker dashboard (platform admins)
        gateways_bp,  # the SMS gateways and their pace (platform admins)
        organisations_bp,  # public bodies and their services; the platform admin's search
        mailbox_bp,  # dev.py run's local mailbox (platform admins)
    ):
        app.register_blueprint(blueprint)
    register_console_cli(app)
    theme_values = theme.register(app, settings)

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

    @app.teardown_request
    def _disconnect(exc: BaseException | None) -> None:
        leave_request(g.get("connection_was_open", True))

    served_over_https = settings.admin_url.startswith("https://")

    @app.after_request
    def _headers(response: Any) -> Any:
        return security_headers.add(response, https=served_over_https)

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

    app.register_error_handler(403, _error_page(403, "errors/403.html"))
    app.register_error_handler(404, _error_page(404, "errors/404.html"))
    app.register_error_handler(429, _error_page(429, "errors/429.html"))
    app.register_error_handler(CSRFError, _error_page(400, "errors/csrf.html"))
    # Settings that cannot work (pipeline/infrastructure/provider_settings.py) are named, never a 500: 409,
    # as the API answers.
    app.register_error_handler(Misconfigured, lambda error: (
        render_template("errors/misconfigured.html", problems=error.messages), 409))
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
