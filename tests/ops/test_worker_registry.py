"""The worker registry's heartbeat: what the ops dashboard shows of a worker's running messages."""
from __future__ import annotations

import json

import dramatiq

from config import get_settings
from workers.broker import current_broker, ops_redis
from workers.registry import WorkerRegistry, keys

broker = current_broker()  # conftest built it through the web app's factory


def test_the_arguments_of_a_running_message_are_masked_in_its_heartbeat():
    registry = WorkerRegistry()
    worker = dramatiq.Worker(broker, worker_threads=1)
    registry.before_worker_boot(broker, worker)
    message = dramatiq.Message(queue_name="send-sms", actor_name="deliver_sms",
                               args=("+31612345678", "Bearer abc.def.ghi"), kwargs={}, options={})
    registry.before_process_message(broker, message)
    registry.after_worker_boot(broker, worker)  # beats once at once
    try:
        workers = keys(get_settings().queue_namespace)["workers"]
        record = json.loads(ops_redis().hget(workers, registry.worker_id(worker)))
        [running] = record["current"]
        assert (running["actor"], running["args"]) == ("deliver_sms", ["***678", "Bearer ***"])
    finally:
        registry.before_worker_shutdown(broker, worker)
