"""GET /_status: the load balancers' health check."""
from __future__ import annotations

import re
import socket

import peewee
import redis

from api.monitoring import health
from version import __version__


def test_status_answers_200_without_authentication_and_names_the_release(client):
    response = client.get("/_status")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "database": "ok", "redis": "ok", "settings": "ok", "workers": "ok",
                                   "queues": "ok", "version": __version__}
    assert re.fullmatch(r"\d+\.\d+\.\d+", response.get_json()["version"])


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens here once the socket closes


def test_unreachable_redis_and_database_give_503(tmp_path):
    unreachable_redis = redis.Redis(port=_closed_port(), socket_connect_timeout=1)
    unreachable_db = peewee.PostgresqlDatabase("test", host="127.0.0.1", port=_closed_port(), user="postgres",
                                               connect_timeout=1)
    checks, code = health(unreachable_db, unreachable_redis)
    assert code == 503
    assert checks == {"status": "unavailable", "database": "unavailable: OperationalError",
                      "redis": "unavailable: ConnectionError"}


def test_unreachable_redis_alone_gives_503(tmp_path):
    db = peewee.SqliteDatabase(str(tmp_path / "ok.db"))
    checks, code = health(db, redis.Redis(port=_closed_port(), socket_connect_timeout=1))
    assert (code, checks["database"], checks["redis"]) == (503, "ok", "unavailable: ConnectionError")
