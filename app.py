"""The Flask app: authenticates, validates, records, enqueues, answers."""
from __future__ import annotations

import click
import redis
from flask import Flask, Response, g, jsonify

from api.errors import register_error_handlers
from config import get_settings, redis_url
from models.db import database, enter_request, init_database, leave_request
from observability import logs
from pipeline.infrastructure import provider_settings
from version import __version__


def create_app() -> Flask:
    settings = get_settings()
    logs.configure("web")
    if database.obj is None:
        init_database(settings.database_url)
    if click.get_current_context(silent=True) is None:  # a server, not a `flask --app app` command
        provider_settings.refuse_to_start(settings, provider_settings.WEB)
    app = Flask(__name__, static_folder=None)
    app.json.sort_keys = False
    app.config["SETTINGS"] = settings

    # Binds the actors the API enqueues to (after commit) to the broker, and registers the
    # status-change listeners (callbacks) in the web process too.
    import workers

    workers.wire()
    from api.admin import admin_blueprint
    from api.branding import branding_blueprint
    from api.case_events import case_events_blueprint
    from api.documents import documents_blueprint
    from api.monitoring import health, register_monitoring
    from api.providers import providers_blueprint, ses_blueprint, sms_webhooks_blueprint
    from api.request_body import check_query
    from api.unsubscribe import unsubscribe_blueprint
    from api.v2 import v2_blueprint
    from cli import register_cli, register_report_reader

    # JSON APIs, not the pages
    for api_blueprint in (v2_blueprint, admin_blueprint, providers_blueprint, ses_blueprint, sms_webhooks_blueprint):
        api_blueprint.before_request(check_query)
    app.register_blueprint(v2_blueprint)
    app.register_blueprint(admin_blueprint)
    app.register_blueprint(documents_blueprint)
    app.register_blueprint(branding_blueprint)
    app.register_blueprint(providers_blueprint)
    app.register_blueprint(ses_blueprint)
    app.register_blueprint(sms_webhooks_blueprint)
    app.register_blueprint(case_events_blueprint)  # Open Notificaties' case messages (issue 52)
    from api.reference import reference_blueprint

    app.register_blueprint(reference_blueprint)
    app.register_blueprint(unsubscribe_blueprint)
    register_error_handlers(app)
    register_cli(app)
    register_monitoring(app)
    register_report_reader(app)

    @app.before_request
    def _connect() -> None:
        g.connection_was_open = enter_request()

    @app.teardown_request
    def _disconnect(exc: BaseException | None) -> None:
        leave_request(g.get("connection_was_open", True))

    from api.send_door import send_door

    # Flask's own wsgi_app stays inside: the test client and every server reach the door first.
    app.wsgi_app = send_door(app.wsgi_app, lambda body: app.json.dumps(body, separators=(",", ":")))  # type: ignore[method-assign, assignment]

    status_redis = redis.Redis.from_url(redis_url(settings), socket_timeout=2, socket_connect_timeout=2)

    @app.get("/_status")
    def status() -> tuple[Response, int]:
        checks, code = health(database, status_redis, get_settings())
        return jsonify({**checks, "version": __version__}), code

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
