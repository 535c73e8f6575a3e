"""One settings object built from environment variables, shared by web, workers and scheduler."""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
# Amazon's SNS endpoints, in every region and in China: sns.eu-west-1.amazonaws.com, sns.cn-north-1.amazonaws.com.cn.
DEFAULT_SNS_HOST_PATTERN = r"^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$"


def _instance_dir() -> Path:
    path = Path(os.environ.get("INSTANCE_DIR", ROOT / "instance"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _persistent_secret(name: str, env_var: str) -> str:
    """An env var, else a value generated once and kept under instance/ so every process agrees."""
    value = os.environ.get(env_var)
    if value:
        return value
    path = _instance_dir() / name
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_urlsafe(32))
    return path.read_text().strip()


@dataclass(frozen=True)
class Settings:
    database_url: str
    redis_url: str | None  # None: the embedded Redis under instance/
    admin_client_id: str
    admin_client_secret: str
    secret_key: str
    base_url: str
    admin_url: str
    port: int
    instance_dir: Path
    queue_namespace: str
    cache_ttl_seconds: float
    # How long a worker may be silent before its unacknowledged messages go to another worker,
    # and how often (per million commands) brokers run that clean-up.
    queue_heartbeat_timeout_ms: int
    worker_db_connections: int
    queue_maintenance_chance: int
    queue_idle_poll_ms: int  # how often a worker looks at a send-path queue it found empty
    queue_quiet_poll_ms: int  # ... at any other queue, and at the delay queues
    smtp_url: str | None
    sms_gateway_url: str | None
    sms_gateway_token: str | None
    provider_webhook_token: str
    clamd_url: str | None
    print_drop_dir: Path
    print_provider: str  # "simulated" (default), "directory" or "sftp": see pipeline/infrastructure/print_provider
    print_batch_seconds: int  # how often accepted letters are handed to the print provider
    email_from_domain: str
    smtp_delivered_on_accept: bool
    provider_max_retries: int
    provider_min_backoff_ms: int
    provider_max_backoff_ms: int
    default_sms_sender: str
    file_storage_dir: Path
    # Callbacks to services: plain http only to a loopback host and only when this is on (tests,
    # local development); the first retry waits this long, each next one twice as long.
    callbacks_allow_http_loopback: bool
    callback_min_backoff_ms: int
    # Public address of the download pages of files sent by email ({document_download_url}/d/...):
    # GOV.UK Notify serves them on a host of their own; default base_url.
    document_download_url: str
    # The web console (its own process): its port, how long a signed-in browser may stay idle, and
    # how long a sign-in lasts however active it is.
    console_port: int
    console_session_idle_minutes: int
    console_session_max_hours: float
    # Delivery faults (issue 12). A send whose outcome is unknown (timed out after the request went
    # out, or its worker died) waits this long for a receipt before it becomes technical-failure.
    sms_gateway_timeout_seconds: float
    sms_gateway_deduplicates: bool  # the gateway drops repeats of a reference: unknown outcomes are retried
    outcome_unknown_timeout_seconds: int
    # How long a send that certainly reached no provider keeps being tried (an outage is waited out).
    send_retry_window_seconds: int
    receipt_hold_seconds: int  # a receipt for a message we do not know yet is kept this long
    sweep_interval_seconds: int  # stuck notifications and letters, held receipts, simulated outboxes
    stuck_after_seconds: int  # a send unclaimed this long past due, or a follow-up still waiting, lost its message
    sending_timeout_seconds: int  # sending/pending this long after creation: temporary-failure
    slow_sweep_interval_seconds: int  # the sending timeout and expired files
    # More SMS gateways, as a JSON array (pipeline/infrastructure/providers/sms/gateways.py), and when one is taken
    # out of rotation: this many failed calls within a minute, for this many seconds.
    sms_gateways: str | None = None
    sms_gateway_failure_threshold: int = 5
    sms_gateway_cooldown_seconds: int = 30
    smtp_fallback_url: str | None = None  # a second SMTP relay, for when the first cannot be reached
    broker_url: str | None = None  # amqp://... : RabbitMQ carries the messages; None: Redis (REDIS_URL)
    metrics_token: str | None = None  # when set, /metrics answers only "Authorization: Bearer <token>"
    # /_status fails when a queue holding messages has had no live worker this long, or its
    # oldest message is older than this.
    status_worker_absent_seconds: float = 60.0
    status_queue_age_seconds: float = 300.0
    smtp_timeout_seconds: float = 30.0  # connecting and each SMTP command, on either relay
    # The console's messages report (CSV): lists up to this many rows are streamed at once; longer ones
    # are built in the background by a worker, with a progress page.
    message_report_background_rows: int = 10_000
    # The largest request the console takes (a spreadsheet upload and its form): 100,000 rows of a
    # CSV of 100 bytes each; zipped XLSX and ODS files of as many rows are smaller still.
    console_max_upload_bytes: int = 10_000_000
    # Amazon SES events through SNS (api/providers/ses_events.py): the hosts signing certificates are
    # fetched from and subscriptions confirmed at, the topics taken (empty: any), a CA file to trust
    # for those https connections instead of the usual store (tests; a proxy with its own CA), and the
    # CAs a signing certificate must chain up to (None: certifi's bundle, with Amazon's roots).
    sns_host_pattern: str = DEFAULT_SNS_HOST_PATTERN
    sns_topic_arns: tuple[str, ...] = ()
    sns_ca_file: str | None = None
    sns_signing_ca_file: str | None = None
    # PRINT_PROVIDER=sftp (pipeline/infrastructure/print_provider/ssh.py): the print house's drop, our private key,
    # the server's host key pinned, and how long connecting and each transfer step may take.
    print_sftp_url: str | None = None
    print_sftp_key_file: Path | None = None
    print_sftp_host_key: str | None = None
    print_sftp_timeout_seconds: float = 30.0
    # dev.py run's local mailbox (local_mailbox.py): where its catcher keeps the mail the console
    # shows; None in every other set-up.
    local_mailbox_dir: Path | None = None
    # An organisation's own NL Design System theme: a CSS file of design tokens (custom properties) served
    # after the console's own, and the class its rules are written for (added to every page's body).
    console_theme_css: Path | None = None
    console_theme_class: str | None = None
    # How notifications are recorded and limits counted (pipeline/infrastructure/throughput): "fast"
    # (default: group commit, cached SQL, leases) or "reference" (the plain ORM, what the tests also run on).
    throughput: str = "fast"
    # Case events (docs/zgw.md): private networks (CIDRs) the ZGW APIs may also be reached in, by https
    # only (callbacks and SMS gateways never), and a CA file to trust for the ZGW APIs instead of
    # certifi's bundle (a municipality's own CA; the system's bundle when that CA is installed there).
    case_events_private_networks: tuple[str, ...] = ()
    case_events_ca_file: str | None = None


def load_settings() -> Settings:
    instance = _instance_dir()
    console_port = int(os.environ.get("CONSOLE_PORT", "6012"))
    return Settings(**_process(instance, console_port), **_queues(), **_sending(), **_providers(),
                    **_letters(instance), **_console(console_port))


def _process(instance: Path, console_port: int) -> dict[str, Any]:
    """Where the data is, the secrets, the addresses the processes answer on."""
    port = int(os.environ.get("PORT", "6011"))
    base_url = os.environ.get("BASE_URL", f"http://127.0.0.1:{port}").rstrip("/")
    return dict(
        database_url=os.environ.get("DATABASE_URL") or f"sqlite:///{instance / 'notify.db'}",
        redis_url=os.environ.get("REDIS_URL") or None,
        admin_client_id=os.environ.get("ADMIN_CLIENT_ID", "notify-admin"),
        admin_client_secret=_persistent_secret("admin-client-secret", "ADMIN_CLIENT_SECRET"),
        secret_key=_persistent_secret("secret-key", "SECRET_KEY"),
        base_url=base_url,
        admin_url=os.environ.get("ADMIN_URL", f"http://127.0.0.1:{console_port}").rstrip("/"),
        port=port,
        instance_dir=instance,
        cache_ttl_seconds=float(os.environ.get("CACHE_TTL_SECONDS", "2")),
        document_download_url=os.environ.get("DOCUMENT_DOWNLOAD_URL", base_url).rstrip("/") or base_url,
        metrics_token=os.environ.get("METRICS_TOKEN") or None,
        throughput=os.environ.get("THROUGHPUT", "fast").strip().lower() or "fast",
    )


def _queues() -> dict[str, Any]:
    """The broker, its queues and the health figures read from them."""
    return dict(
        queue_namespace=os.environ.get("QUEUE_NAMESPACE", "notify"),
        queue_heartbeat_timeout_ms=int(os.environ.get("QUEUE_HEARTBEAT_TIMEOUT_MS", "60000")),
        worker_db_connections=int(os.environ.get("WORKER_DB_CONNECTIONS", "16")),
        queue_maintenance_chance=int(os.environ.get("QUEUE_MAINTENANCE_CHANCE", "1000")),
        queue_idle_poll_ms=int(os.environ.get("QUEUE_IDLE_POLL_MS", "100")),
        queue_quiet_poll_ms=int(os.environ.get("QUEUE_QUIET_POLL_MS", "1000")),
        broker_url=os.environ.get("BROKER_URL") or None,
        status_worker_absent_seconds=float(os.environ.get("STATUS_WORKER_ABSENT_SECONDS", "60")),
        status_queue_age_seconds=float(os.environ.get("STATUS_QUEUE_AGE_SECONDS", "300")),
        message_report_background_rows=int(os.environ.get("MESSAGE_REPORT_BACKGROUND_ROWS", "10000")),
    )


def _sending() -> dict[str, Any]:
    """How long a send, a receipt and a callback are retried and waited for."""
    return dict(
        provider_max_retries=int(os.environ.get("PROVIDER_MAX_RETRIES", "10")),
        provider_min_backoff_ms=int(os.environ.get("PROVIDER_MIN_BACKOFF_MS", "5000")),
        provider_max_backoff_ms=int(os.environ.get("PROVIDER_MAX_BACKOFF_MS", "600000")),
        outcome_unknown_timeout_seconds=int(os.environ.get("OUTCOME_UNKNOWN_TIMEOUT_SECONDS", "3600")),
        send_retry_window_seconds=int(os.environ.get("SEND_RETRY_WINDOW_SECONDS", str(4 * 3600))),
        receipt_hold_seconds=int(os.environ.get("RECEIPT_HOLD_SECONDS", "3600")),
        sweep_interval_seconds=int(os.environ.get("SWEEP_INTERVAL_SECONDS", "60")),
        stuck_after_seconds=int(os.environ.get("STUCK_AFTER_SECONDS", "120")),
        sending_timeout_seconds=int(os.environ.get("SENDING_TIMEOUT_SECONDS", str(72 * 3600))),
        slow_sweep_interval_seconds=int(os.environ.get("SLOW_SWEEP_INTERVAL_SECONDS", "3600")),
        callbacks_allow_http_loopback=os.environ.get("CALLBACKS_ALLOW_HTTP_LOOPBACK", "0") in ("1", "true", "yes"),
        callback_min_backoff_ms=int(os.environ.get("CALLBACK_MIN_BACKOFF_MS", "30000")),
    )


def _providers() -> dict[str, Any]:
    """The email and SMS providers, the virus scanner, receipts' senders and the ZGW APIs' network."""
    return dict(
        smtp_url=os.environ.get("SMTP_URL") or None,
        sms_gateway_url=os.environ.get("SMS_GATEWAY_URL") or None,
        sms_gateway_token=os.environ.get("SMS_GATEWAY_TOKEN") or None,
        provider_webhook_token=_persistent_secret("provider-webhook-token", "PROVIDER_WEBHOOK_TOKEN"),
        clamd_url=os.environ.get("CLAMD_URL") or None,
        email_from_domain=os.environ.get("EMAIL_FROM_DOMAIN", "notify.localhost"),
        smtp_delivered_on_accept=os.environ.get("SMTP_DELIVERED_ON_ACCEPT", "1") not in ("0", "false", "no"),
        default_sms_sender=os.environ.get("DEFAULT_SMS_SENDER", "Notify"),
        sms_gateway_timeout_seconds=float(os.environ.get("SMS_GATEWAY_TIMEOUT_SECONDS", "10")),
        sms_gateway_deduplicates=os.environ.get("SMS_GATEWAY_DEDUPLICATES", "0") in ("1", "true", "yes"),
        sms_gateways=os.environ.get("SMS_GATEWAYS") or None,
        sms_gateway_failure_threshold=int(os.environ.get("SMS_GATEWAY_FAILURE_THRESHOLD", "5")),
        sms_gateway_cooldown_seconds=int(os.environ.get("SMS_GATEWAY_COOLDOWN_SECONDS", "30")),
        smtp_fallback_url=os.environ.get("SMTP_FALLBACK_URL") or None,
        smtp_timeout_seconds=float(os.environ.get("SMTP_TIMEOUT_SECONDS", "30")),
        sns_host_pattern=os.environ.get("SNS_HOST_PATTERN") or DEFAULT_SNS_HOST_PATTERN,
        sns_topic_arns=tuple(arn.strip() for arn in os.environ.get("SNS_TOPIC_ARNS", "").split(",") if arn.strip()),
        sns_ca_file=os.environ.get("SNS_CA_FILE") or None,
        sns_signing_ca_file=os.environ.get("SNS_SIGNING_CA_FILE") or None,
        case_events_private_networks=tuple(network.strip() for network in os.environ.get(
            "CASE_EVENTS_PRIVATE_NETWORKS", "").split(",") if network.strip()),
        case_events_ca_file=os.environ.get("CASE_EVENTS_CA_FILE") or None,
    )


def _letters(instance: Path) -> dict[str, Any]:
    """The print house and where files are kept."""
    return dict(
        print_drop_dir=Path(os.environ.get("PRINT_DROP_DIR", instance / "print")),
        print_provider=os.environ.get("PRINT_PROVIDER", "simulated").strip().lower() or "simulated",
        print_batch_seconds=int(os.environ.get("PRINT_BATCH_SECONDS", "60")),
        file_storage_dir=Path(os.environ.get("FILE_STORAGE_DIR", instance / "files")),
        print_sftp_url=os.environ.get("PRINT_SFTP_URL") or None,
        print_sftp_key_file=Path(os.environ["PRINT_SFTP_KEY_FILE"]) if os.environ.get("PRINT_SFTP_KEY_FILE") else None,
        print_sftp_host_key=os.environ.get("PRINT_SFTP_HOST_KEY", "").strip() or None,
        print_sftp_timeout_seconds=float(os.environ.get("PRINT_SFTP_TIMEOUT_SECONDS", "30")),
    )


def _console(console_port: int) -> dict[str, Any]:
    """The console's port, sessions, uploads and look."""
    return dict(
        console_port=console_port,
        console_session_idle_minutes=int(os.environ.get("CONSOLE_SESSION_IDLE_MINUTES", "60")),
        console_session_max_hours=float(os.environ.get("CONSOLE_SESSION_MAX_HOURS", "12")),
        console_max_upload_bytes=int(os.environ.get("CONSOLE_MAX_UPLOAD_BYTES", "10000000")),
        local_mailbox_dir=Path(os.environ["LOCAL_MAILBOX_DIR"]) if os.environ.get("LOCAL_MAILBOX_DIR") else None,
        console_theme_css=Path(os.environ["CONSOLE_THEME_CSS"]) if os.environ.get("CONSOLE_THEME_CSS") else None,
        console_theme_class=os.environ.get("CONSOLE_THEME_CLASS", "").strip() or None,
    )


_settings: Settings | None = None


def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    global _settings
    if _settings is None:
        _settings = load_settings()
    return _settings


def email_goes_nowhere(settings: Settings) -> str | None:
    """What the console and the workers say at start-up when no email provider is configured (dev.py
    run sets SMTP_URL to its local mailbox, so this is a deployment without one)."""
    if settings.smtp_url:
        return None
    return ("SMTP_URL is not set: every email, including the console's invitations, password reset links "
            "and sign-in codes, goes to the simulated provider and reaches nobody")


def redis_url(settings: Settings) -> str:
    if settings.redis_url:
        return settings.redis_url
    import embedded_redis

    return embedded_redis.ensure_running(settings.instance_dir)
