"""The baseline of the pipeline benchmark: Dramatiq actors that do nothing but count, on the same Redis."""
import os

import dramatiq
import redis
from dramatiq.brokers.redis import RedisBroker

broker = RedisBroker(url=os.environ["REDIS_URL"], namespace=os.environ["QUEUE_NAMESPACE"])
dramatiq.set_broker(broker)
counter = redis.Redis.from_url(os.environ["REDIS_URL"])


@dramatiq.actor(queue_name="noop")
def noop(i: int) -> None:
    counter.incr(f"{os.environ['QUEUE_NAMESPACE']}:done")
