"""The Flask app: authenticates, validates, records, enqueues, answers."""
from __future__ import annotations

import logging

import peewee
import redis
from flask import Flask, Response, g, jsonify

from api.errors import register_error_handlers
from config import get_settings, redis_url
from models.db import database, init_database, enter_request, leave_request


def create_app() -> Flask:
    settings = get_settings()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    if database.obj is None:
        init_database(settings.database_url)
    app = Flask(__name__, static_folder=None)
    app.json.sort_keys = False
    app.config["SETTINGS"] = settings

    # Importing the workers binds the actors the API enqueues to (after commit) to Redis, and
    # registers the status-change listeners (callbacks) in the web process too.
    import workers  # noqa: F401
    from api.admin import admin_blueprint
    from api.branding import branding_blueprint
    from api.documents import documents_blueprint
    from api.providers import providers_blueprint
    from api.unsubscribe import unsubscribe_blueprint
    from api.v2 import v2_blueprint
    from cli import register_cli, register_report_reader

    from api.request_body import check_query

    for api_blueprint in (v2_blueprint, admin_blueprint, providers_blueprint):  # JSON APIs, not the pages
        api_blueprint.before_request(check_query)
    app.register_blueprint(v2_blueprint)
    app.register_blueprint(admin_blueprint)
    app.register_blueprint(documents_blueprint)
    app.register_blueprint(branding_blueprint)
    app.register_blueprint(providers_blueprint)
    from api.reference import reference_blueprint

    app.register_blueprint(reference_blueprint)
    app.register_blueprint(unsubscribe_blueprint)
    register_error_handlers(app)
    register_cli(app)
    register_report_reader(app)

    @app.before_request
    def _connect() -> None:
        g.connection_was_open = enter_request()

    @app.teardown_request
    def _disconnect(exc: BaseException | None) -> None:
        leave_request(g.get("connection_was_open", True))

    status_redis = redis.Redis.from_url(redis_url(settings), socket_timeout=2, socket_connect_timeout=2)

    @app.get("/_status")
    def status() -> tuple[Response, int]:
        checks, code = health(database, status_redis)
        return jsonify(checks), code

    return app


def health(db: peewee.Database, redis_client: redis.Redis) -> tuple[dict[str, str], int]:
    """200 when the database and Redis answer, else 503 naming what does not."""
    checks = {"database": "ok", "redis": "ok"}
    try:
        db.execute_sql("SELECT 1")
    except peewee.PeeweeException as exc:
        checks["database"] = f"unavailable: {type(exc).__name__}"
    try:
        redis_client.ping()
    except redis.RedisError as exc:
        checks["redis"] = f"unavailable: {type(exc).__name__}"
    healthy = all(value == "ok" for value in checks.values())
    return {"status": "ok" if healthy else "unavailable", **checks}, 200 if healthy else 503


app = create_app()
