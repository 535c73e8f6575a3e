"""The web app's wiring steps, each called once by `create_app` (app.py) in the order it lists them;
the order is the order of the request hooks: the monitoring's request timer starts before a request
takes its database connection.

Each step imports the routes it wires when it runs, after the process is set up (logs, database,
broker) as before the steps were split: a module's import-time work runs in the same order, and a
server refuses settings that cannot work before importing any route.
"""
from __future__ import annotations

import click
import redis
from flask import Flask, Response, g, jsonify

from config import Settings, get_settings, redis_url
from models import platform
from models.db import database, enter_request, init_database, leave_request
from observability import logs
from pipeline.infrastructure import provider_settings
from version import __version__


def start_process(settings: Settings) -> None:
    """Logs, the database handle and the broker of this process; a server refuses settings that cannot work."""
    logs.configure("web")
    if database.obj is None:
        init_database(settings.database_url)
    if click.get_current_context(silent=True) is None:  # a server, not a `flask --app app` command
        provider_settings.refuse_to_start(settings, provider_settings.WEB)
    # Binds the actors the API enqueues to (after commit) to the broker, and registers the
    # status-change listeners (callbacks) in the web process too.
    import workers

    workers.wire()


def register_blueprints(app: Flask) -> None:
    """Every blueprint of the API, registered in this order; the JSON APIs' (not the pages') refuse unknown queries."""
    from api.admin import admin_blueprint
    from api.branding import branding_blueprint
    from api.case_events import case_events_blueprint
    from api.documents import documents_blueprint
    from api.providers import providers_blueprint, ses_blueprint, sms_webhooks_blueprint
    from api.reference import reference_blueprint
    from api.request_body import check_query
    from api.unsubscribe import unsubscribe_blueprint
    from api.v2 import v2_blueprint

    for api_blueprint in (v2_blueprint, admin_blueprint, providers_blueprint, ses_blueprint, sms_webhooks_blueprint):
        api_blueprint.before_request(check_query)
    for blueprint in (v2_blueprint, admin_blueprint, documents_blueprint, branding_blueprint, providers_blueprint,
                      ses_blueprint, sms_webhooks_blueprint, case_events_blueprint, reference_blueprint,
                      unsubscribe_blueprint):
        app.register_blueprint(blueprint)


def add_monitoring(app: Flask) -> None:
    """`/_live`, `/metrics`, and each request's timing and log context."""
    from api.monitoring import register_monitoring

    register_monitoring(app)


def connect_requests(app: Flask) -> None:
    """Each request takes the database connection it needs and gives it back at its end."""

    @app.before_request
    def _connect() -> None:
        g.connection_was_open = enter_request()
        # The platform's emails an API request sends (going live, say) are in the platform's own
        # language: no page chose one. Declared each request, since a thread's context outlives it.
        platform.set_language(platform.DEFAULT_LANGUAGE)

    @app.teardown_request
    def _disconnect(exc: BaseException | None) -> None:
        leave_request(g.get("connection_was_open", True))


def open_send_door(app: Flask) -> None:
    from api.send_door import send_door

    # Flask's own wsgi_app stays inside: the test client and every server reach the door first.
    app.wsgi_app = send_door(app.wsgi_app, lambda body: app.json.dumps(body, separators=(",", ":")))  # type: ignore[method-assign, assignment]


def add_status(app: Flask, settings: Settings) -> None:
    """`/_status`: whether the database, Redis, the settings and the queues work, with the release."""
    from api.monitoring import health

    status_redis = redis.Redis.from_url(redis_url(settings), socket_timeout=2, socket_connect_timeout=2)

    @app.get("/_status")
    def status() -> tuple[Response, int]:
        checks, code = health(database, status_redis, get_settings())
        return jsonify({**checks, "version": __version__}), code
