"""The alerting rules and the Grafana dashboard in docs/ are checked, not just shipped."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

DOCS = Path(__file__).resolve().parents[2] / "docs"
# Dramatiq's Prometheus middleware (worker processes) exports these; the web's /metrics the rest.
DRAMATIQ_METRICS = {"dramatiq_message_duration_milliseconds", "dramatiq_message_errors_total",
                    "dramatiq_messages_total", "dramatiq_message_retries_total", "dramatiq_message_rejects_total",
                    "dramatiq_messages_inprogress", "dramatiq_delayed_messages_inprogress"}


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("promtool is missing (.ci/run installs Debian's prometheus package)")
        pytest.skip("promtool is not installed (apt-get install prometheus)")
    return found


def test_alert_rules_are_valid_and_fire_when_workers_pause():
    promtool = _promtool()
    checked = subprocess.run([promtool, "check", "rules", "alerts.yml"], cwd=DOCS / "prometheus",
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run([promtool, "test", "rules", "alerts_test.yml"], cwd=DOCS / "prometheus",
                            capture_output=True, text=True)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout


def _names_in(expr: str) -> set[str]:
    return {n for n in re.findall(r"\b((?:notify|dramatiq)_[a-z_]+)\b", expr)}


def _exported(client) -> set[str]:
    text = client.get("/metrics").get_data(as_text=True)
    names = set()
    for family in text_string_to_metric_families(text):
        names |= {sample.name for sample in family.samples} | {family.name}
    return names


def test_every_metric_the_dashboard_and_rules_use_is_exported(client, service):
    # A labelled metric appears once it has a sample: count one of each kind first.
    from observability import metrics

    metrics.provider_calls.labels("simulated", "sms", "sent").observe(0.01)
    metrics.callback_attempts.labels("delivery-status", "delivered").inc()
    metrics.limit_refusals.labels("rate").inc()
    metrics.notifications_accepted.labels("sms", "live").inc()
    metrics.status_transitions.labels("sms", "delivered").inc()
    client.get("/_live")
    exported = _exported(client) | DRAMATIQ_METRICS
    dashboard = json.loads((DOCS / "grafana" / "notify-dashboard.json").read_text())
    used = {name for panel in dashboard["panels"] for target in panel["targets"] for name in _names_in(target["expr"])}
    used |= _names_in((DOCS / "prometheus" / "alerts.yml").read_text())
    histogram_parts = {n for n in used if n.endswith(("_bucket", "_count", "_sum"))}
    assert used - histogram_parts - exported == set()
    assert {n for n in histogram_parts if n.startswith("notify_")} - exported == set()
