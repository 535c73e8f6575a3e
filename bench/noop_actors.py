"""The baseline of the pipeline benchmark: a Dramatiq actor that does nothing, on the same Redis.

Completions are read off the broker itself (a message leaves its queue's hash when acked), so the
actor makes no call of its own.
"""
import os

import dramatiq
from dramatiq.brokers.redis import RedisBroker

broker = RedisBroker(url=os.environ["REDIS_URL"], namespace=os.environ["QUEUE_NAMESPACE"])
dramatiq.set_broker(broker)


@dramatiq.actor(queue_name="noop")
def noop(i: int) -> None:
    pass
