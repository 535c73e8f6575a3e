"""The errors that mean a dependency is unreachable for now, not that a request or a row is wrong.

The API answers them 503 with Retry-After (api/errors.py); the scheduler waits them out; a queue
message that cannot be sent because of them is left to the sweeps (workers/enqueue.py).
"""
from __future__ import annotations

import peewee
import redis
from playhouse.pool import MaxConnectionsExceeded

# The server is down or restarting, a connection was dropped, or every pooled connection is busy.
DATABASE_UNAVAILABLE = (peewee.OperationalError, peewee.InterfaceError, MaxConnectionsExceeded)
REDIS_UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError)
UNAVAILABLE = (*DATABASE_UNAVAILABLE, *REDIS_UNAVAILABLE)
