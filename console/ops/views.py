"""The worker dashboard for platform admins: queues, worker processes, stage durations, held letter
batches, sends waiting on an unknown outcome, stuck notifications and dead-lettered messages, read
from the broker (workers.queue_stats) and the database."""
from __future__ import annotations

import time
import uuid
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from flask_babel import gettext as _

from config import get_settings
from console.auth import platform_admin_required
from console.ops.actor_names import described
from models.db import utcnow
from models.notification import Notification
from pipeline.stages import unknown_outcomes
from pipeline.stages.letters import held
from workers import dead_letters, queue_stats

bp = Blueprint("ops", __name__)


def _known_queue(queue: str) -> str:
    if queue not in queue_stats.queue_names():
        abort(404)
    return queue


@bp.get("/platform-admin/workers")
@platform_admin_required
def dashboard() -> Any:
    return render_template(
        "ops/dashboard.html", queues=queue_stats.queue_stats(), workers=queue_stats.worker_processes(),
        stages=queue_stats.stage_percentiles(), held_print_batches=held.held_batches(),
        unknown_outcomes=unknown_outcomes.waiting(utcnow(), get_settings()),
        outcome_unknown_timeout=get_settings().outcome_unknown_timeout_seconds,
        stuck=queue_stats.stuck_notifications(),
        dead_letters_supported=dead_letters.supported(), now=time.time(), described=described)


@bp.get("/platform-admin/workers/queues/<queue>/dead")
@platform_admin_required
def dead(queue: str) -> Any:
    queue = _known_queue(queue)
    if not dead_letters.supported():
        abort(404)
    return render_template("ops/dead_letters.html", queue=queue, letters=dead_letters.list_dead(queue, 100))


@bp.post("/platform-admin/workers/queues/<queue>/dead/<message_id>/<action>")
@platform_admin_required
def act_on_one(queue: str, message_id: str, action: str) -> Any:
    queue = _known_queue(queue)
    if action not in ("requeue", "drop") or not dead_letters.supported():
        abort(404)
    done = dead_letters.requeue(queue, message_id) if action == "requeue" else dead_letters.drop(queue, message_id)
    if not done:
        flash(_("That message is no longer dead-lettered."), "error")
    elif action == "requeue":
        flash(_("Message sent to its queue again."))
    else:
        flash(_("Message dropped."))
    return redirect(url_for("ops.dead", queue=queue))


@bp.post("/platform-admin/workers/queues/<queue>/dead-all/<action>")
@platform_admin_required
def act_on_all(queue: str, action: str) -> Any:
    queue = _known_queue(queue)
    if action not in ("requeue", "drop") or not dead_letters.supported():
        abort(404)
    if action == "requeue":
        flash(_("%(count)d messages sent to their queue again.", count=dead_letters.requeue_all(queue)))
    else:
        flash(_("%(count)d messages dropped.", count=dead_letters.drop_all(queue)))
    return redirect(url_for("ops.dead", queue=queue))


@bp.get("/platform-admin/notifications/<notification_id>")
@platform_admin_required
def notification(notification_id: str) -> Any:
    try:
        found = Notification.get_or_none(Notification.id == uuid.UUID(notification_id))
    except ValueError:
        found = None
    if found is None:
        abort(404)
    return render_template("ops/notification.html", notification=found)
