"""Versioned schema migrations: each step runs once, in order, recorded in schema_version.

`python -m models.migrations` (the Procfile's release process) is idempotent: an existing database
is upgraded in place, a current one is left alone.
"""
from __future__ import annotations

from collections.abc import Callable

import peewee

from models import crypto
from models.api_key import ApiKey
from models.appearance import EmailBrand, LetterBrand, ServiceAppearance
from models.callback_attempt import CallbackAttempt
from models.db import BaseModel, database, is_postgres, utcnow
from models.document import Document
from models.held_receipt import HeldReceipt
from models.notification import Notification, ReceivedText
from models.service import (
    GuestListEntry,
    InboundNumber,
    LetterContact,
    ReplyToAddress,
    Service,
    ServiceCallback,
    SmsSender,
    TeamMember,
)
from models.template import Template, TemplateVersion


class SchemaVersion(BaseModel):
    version = peewee.IntegerField(primary_key=True)
    name = peewee.CharField()
    applied_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "schema_version"


def _initial_schema() -> None:
    database.create_tables(
        [
            Service, TeamMember, GuestListEntry, SmsSender, ReplyToAddress, LetterContact,
            InboundNumber, ServiceCallback, ApiKey, Template, TemplateVersion, Notification,
            ReceivedText,
        ]
    )


def _documents() -> None:
    database.create_tables([Document])


def _callbacks_and_reporting() -> None:
    # The daily counts this step made then are in the daily store since step 120.
    database.create_tables([CallbackAttempt])


def _fragment_count() -> None:
    from playhouse.migrate import SchemaMigrator, migrate as apply

    table, name = Notification._meta.table_name, Notification.fragment_count.column_name
    if name in {c.name for c in database.get_columns(table)}:
        return  # made by step 1 from today's model
    apply(SchemaMigrator.from_database(database.obj).add_column(table, name, Notification.fragment_count))


def _drop_created_at_index() -> None:
    # Every query on created_at leads with service and key type, or with status: this index was only
    # ever written to, once per insert and again per status change.
    database.execute_sql('DROP INDEX IF EXISTS "notification_created_at"')


def _partial_provider_reference_index() -> None:
    database.execute_sql('DROP INDEX IF EXISTS "notification_provider_reference"')
    database.execute_sql('CREATE INDEX "notification_provider_reference" ON "notification" ("provider_reference")'
                         ' WHERE "provider_reference" IS NOT NULL')


def _reference_filter_index() -> None:
    # Made by step 1 from today's model on a new database, hence IF NOT EXISTS.
    database.execute_sql(
        'CREATE INDEX IF NOT EXISTS "notification_service_id_key_type_reference_created_at_id" ON "notification"'
        ' ("service_id", "key_type", "reference", "created_at", "id") WHERE "reference" IS NOT NULL')


def _audit_and_go_live() -> None:
    from models.audit import AuditEvent
    from models.go_live import GoLiveRequest

    database.create_tables([AuditEvent, GoLiveRequest])


def _api_key_creator_and_last_use() -> None:
    from playhouse.migrate import SchemaMigrator, migrate as apply

    table = ApiKey._meta.table_name
    present = {c.name for c in database.get_columns(table)}
    migrator = SchemaMigrator.from_database(database.obj)
    for field in (ApiKey.created_by, ApiKey.last_used_at):
        if field.column_name not in present:  # step 1 made it already from today's model
            apply(migrator.add_column(table, field.column_name, field))


def _api_key_expiry() -> None:
    _add_missing_columns(ApiKey.expires_at, ApiKey.expiry_warned_at)


def _appearance() -> None:
    from playhouse.migrate import SchemaMigrator, migrate as apply

    database.create_tables([EmailBrand, LetterBrand, ServiceAppearance])
    table = TemplateVersion._meta.table_name
    present = {c.name for c in database.get_columns(table)}
    migrator = SchemaMigrator.from_database(database.obj)
    for field in (TemplateVersion.letter_languages, TemplateVersion.letter_english_subject,
                  TemplateVersion.letter_english_body):
        if field.column_name not in present:  # made by step 1 from today's model
            apply(migrator.add_column(table, field.column_name, field))


def _notification_events() -> None:
    from models.notification_event import NotificationEvent

    database.create_tables([NotificationEvent])


def _hosted_unsubscribe() -> None:
    from playhouse.migrate import SchemaMigrator, migrate as apply

    table, name = Service._meta.table_name, Service.hosted_unsubscribe.column_name
    if name in {c.name for c in database.get_columns(table)}:
        return  # made by step 1 from today's model
    apply(SchemaMigrator.from_database(database.obj).add_column(table, name, Service.hosted_unsubscribe))


def _console_accounts() -> None:
    from models.user import USER_TABLES

    database.create_tables(USER_TABLES)


def _held_receipts() -> None:
    database.create_tables([HeldReceipt])


def _rates_and_billing() -> None:
    from models.rate import Rate, seed_default_rates

    # The daily billable units this step made then are in the daily store since step 120.
    database.create_tables([Rate])
    seed_default_rates()


def _sms_gateways() -> None:
    from models.sms_gateway import SmsGateway, SmsGatewayChange

    database.create_tables([SmsGateway, SmsGatewayChange])


def _jobs_and_senders() -> None:
    from playhouse.migrate import SchemaMigrator, migrate as apply

    from models.job import Job

    database.create_tables([Job])
    table = Notification._meta.table_name
    present = {c.name for c in database.get_columns(table)}
    migrator = SchemaMigrator.from_database(database.obj)
    for field in (Notification.job_id, Notification.job_row_number, Notification.created_by_user_id):
        if field.column_name not in present:  # step 1 made it already from today's model
            apply(migrator.add_column(table, field.column_name, field))
    # IF NOT EXISTS: step 1 made it already when it built the table from today's model.
    database.execute_sql('CREATE UNIQUE INDEX IF NOT EXISTS "notification_job_id_job_row_number" ON "notification"'
                         ' ("job_id", "job_row_number") WHERE "job_id" IS NOT NULL')


def _template_folders() -> None:
    from playhouse.migrate import SchemaMigrator, migrate as apply

    from models.template_folder import TemplateFolder

    database.create_tables([TemplateFolder])
    table, name = Template._meta.table_name, Template.folder_id.column_name
    if name not in {c.name for c in database.get_columns(table)}:  # made by step 1 from today's model
        apply(SchemaMigrator.from_database(database.obj).add_column(table, name, Template.folder_id))
def _job_progress() -> None:
    from playhouse.migrate import SchemaMigrator, migrate as apply

    from models.job import Job

    table = Job._meta.table_name
    present = {c.name for c in database.get_columns(table)}
    migrator = SchemaMigrator.from_database(database.obj)
    for field in (Job.progressed_at, Job.international_rows):
        if field.column_name not in present:  # step 90 made it already from today's model
            apply(migrator.add_column(table, field.column_name, field))


def _add_missing_columns(*fields: peewee.Field) -> None:
    from playhouse.migrate import SchemaMigrator, migrate as apply

    migrator = SchemaMigrator.from_database(database.obj)
    for field in fields:
        table = field.model._meta.table_name
        # step 1 (or the step making the table) made it already from today's model
        if field.column_name not in {c.name for c in database.get_columns(table)}:
            apply(migrator.add_column(table, field.column_name, field))


def _letter_validation_failure() -> None:
    _add_missing_columns(Notification.validation_failure)


def _recipient_search_index() -> None:
    from models.notification import RECIPIENT_INDEX

    # IF NOT EXISTS: step 1 made it already when it built the table from today's model.
    database.execute_sql(f'CREATE INDEX IF NOT EXISTS "{RECIPIENT_INDEX}" ON "notification"'
                         ' ("service_id", LOWER("normalised_to"), "created_at")')


def _message_reports() -> None:
    from models.message_report import MessageReport

    database.create_tables([MessageReport])
def _daily_rollup() -> None:
    from models.daily_rollup import DailyStatusCount, DailyUsage, RolledUpDay

    database.create_tables([RolledUpDay, DailyStatusCount, DailyUsage])


def _one_daily_store() -> None:
    """The purge's daily counts and billable units (daily_count, daily_billing) become its tally in the
    rollup's tables, row for row, marked purged. Nothing is summed: the rollup's rows of a day already
    hold what had been purged when it was last rolled up, and the tally is read as the two tables were
    (for days never rolled up, and by the next rollup), so every day's figures stay what they were."""
    from playhouse.migrate import SchemaMigrator, migrate as apply

    from models.daily_rollup import DailyStatusCount, DailyUsage, unique_key

    for model, old_table in ((DailyStatusCount, "daily_count"), (DailyUsage, "daily_billing")):
        table, purged = model._meta.table_name, model.purged
        if purged.column_name not in {c.name for c in database.get_columns(table)}:  # made by step 110 if new
            old_key = [f.column_name for f in unique_key(model) if f is not purged]
            for index in database.get_indexes(table):
                if index.columns == old_key:
                    database.execute_sql(f'DROP INDEX "{index.name}"')
            apply(SchemaMigrator.from_database(database.obj).add_column(table, purged.column_name, purged))
            database.create_tables([model])  # the table is there: only its unique index with purged is made
        if old_table in database.get_tables():
            fields = [f for f in model._meta.sorted_fields if f is not model._meta.primary_key]
            old = peewee.Table(old_table)
            kept = [peewee.Value(True) if f is purged else getattr(old.c, f.column_name) for f in fields]
            model.insert_from(old.select(*kept), fields).execute()
            database.execute_sql(f'DROP TABLE "{old_table}"')


def _send_retry_at() -> None:
    _add_missing_columns(Notification.retry_at)


def _sms_gateway_types() -> None:
    from models.sms_gateway import SmsGateway

    _add_missing_columns(SmsGateway.type, SmsGateway.account_sid, SmsGateway.messaging_service_sid)


def _service_time_zone() -> None:
    _add_missing_columns(Service.time_zone)


RECEIVED_TEXT_BATCH = 500


def _received_texts_encrypted() -> None:
    """Received texts stored before in clear are sealed as the model now writes them, a batch at a time
    in the order of their ids (memory stays bounded however many there are). A text already sealed is
    left alone, so a step interrupted and run again finishes the job."""
    table = peewee.Table(ReceivedText._meta.table_name).bind(database)
    text_id, content = table.c.id, table.c.content
    after = None
    while True:
        query = table.select(text_id, content).order_by(text_id).limit(RECEIVED_TEXT_BATCH)
        rows = list((query if after is None else query.where(text_id > after)).tuples())
        for row_id, value in rows:
            if not _sealed(value):
                table.update({content: crypto.encrypt(value)}).where(text_id == row_id).execute()
        if len(rows) < RECEIVED_TEXT_BATCH:
            return
        after = rows[-1][0]


def _account_settings() -> None:
    from models.user import EmailChange, User

    _add_missing_columns(User.mobile_number)
    database.create_tables([EmailChange])
    # The platform service now also sends texts (codes to a mobile number); one made before says so too.
    from models.platform import PLATFORM_SERVICE_ID
    from models.service import Service

    platform = Service.get_or_none(Service.id == PLATFORM_SERVICE_ID)
    if platform is not None and "sms" not in platform.permissions:
        Service.update(permissions=[*platform.permissions, "sms"]).where(Service.id == PLATFORM_SERVICE_ID).execute()


def _sealed(value: str) -> bool:
    try:
        crypto.decrypt(value)
    except crypto.UNREADABLE:
        return False
    return True


def _held_print_batches() -> None:
    from models.held_print_batch import HeldPrintBatch

    database.create_tables([HeldPrintBatch])
def _organisations() -> None:
    from models.go_live import GoLiveRequest
    from models.organisation import ORGANISATION_TABLES
    from models.rate import Rate

    database.create_tables(ORGANISATION_TABLES)
    _add_missing_columns(Service.time_zone)
    _add_missing_columns(GoLiveRequest.expected_volumes, GoLiveRequest.recipients,
                         GoLiveRequest.organisation_id, GoLiveRequest.organisation_approved_by_name,
                         GoLiveRequest.organisation_approved_at)
    _add_missing_columns(Rate.rate_table)
    # One price per table, kind and day: the unique index gains the table's name.
    for index in database.get_indexes(Rate._meta.table_name):
        if index.unique and index.columns == ["notification_type", "postage", "valid_from"]:
            database.execute_sql(f'DROP INDEX "{index.name}"')
    database.create_tables([Rate])  # the table is there: only its new unique index is made


# --- Step 170 (issue 45, branch jobs): explicit DDL, reads no model; for the lead's frozen migrations. ---
def _job_rows_in_parts() -> None:
    if is_postgres():
        database.execute_sql(
            'CREATE TABLE IF NOT EXISTS "job_rows" ("job_id" UUID NOT NULL, "part" INTEGER NOT NULL,'
            ' "first_row" INTEGER NOT NULL, "rows" TEXT NOT NULL, PRIMARY KEY ("job_id", "part"),'
            ' FOREIGN KEY ("job_id") REFERENCES "job" ("id") ON DELETE CASCADE)')
    else:
        database.execute_sql(
            'CREATE TABLE IF NOT EXISTS "job_rows" ("job_id" TEXT NOT NULL, "part" INTEGER NOT NULL,'
            ' "first_row" INTEGER NOT NULL, "rows" TEXT NOT NULL, PRIMARY KEY ("job_id", "part"),'
            ' FOREIGN KEY ("job_id") REFERENCES "job" ("id") ON DELETE CASCADE)')
# --- end of step 170 ---


MIGRATIONS: list[tuple[int, str, Callable[[], None]]] = [
    (1, "initial schema", _initial_schema),
    (2, "files sent by email", _documents),
    (3, "callback attempts and daily counts", _callbacks_and_reporting),
    (4, "fragment count known at accept", _fragment_count),
    (5, "no index on created_at alone", _drop_created_at_index),
    (6, "provider reference indexed only where set", _partial_provider_reference_index),
    (10, "receipts held until their message is known", _held_receipts),
    (30, "the list's reference filter has an index", _reference_filter_index),
    (40, "web console accounts, memberships, invitations and sessions", _console_accounts),
    (50, "audit trail and go-live requests", _audit_and_go_live),
    (51, "api keys: who created them and when last used", _api_key_creator_and_last_use),
    (70, "service language, email and letter brands, bilingual letters", _appearance),
    (80, "complaints, unsubscribe requests and returned letters", _notification_events),
    (81, "one-click unsubscribe hosted for a service", _hosted_unsubscribe),
    (82, "rate card and daily billable units", _rates_and_billing),
    (83, "sms gateways and their history of changes", _sms_gateways),
    (90, "bulk jobs; who sent a message (job row or console user)", _jobs_and_senders),
    (91, "template folders", _template_folders),
    (95, "why a letter failed validation", _letter_validation_failure),
    (96, "the console's search by recipient has an index", _recipient_search_index),
    (97, "messages reports built in the background", _message_reports),
    (100, "bulk jobs: when a job last progressed, its international rows", _job_progress),
    (110, "closed days rolled up: status counts and billable units per service and day", _daily_rollup),
    (120, "one daily store: the purge's counts and billable units kept in the rollup's tables", _one_daily_store),
    (125, "a send waiting out a provider outage says when it is tried again", _send_retry_at),
    (130, "received texts encrypted at rest, as sent content", _received_texts_encrypted),
    (135, "sms gateways have a type (json, spryng, cm, twilio) and its account settings", _sms_gateway_types),
    (145, "letter batches held until the print provider may be sent to", _held_print_batches),
    (150, "a service's time zone, for the console's times and schedules", _service_time_zone),
    (155, "account settings: a verified mobile number, email changes waiting for their link", _account_settings),
    (160, "api keys: an optional expiry date, and when its warning went out", _api_key_expiry),
    (165, "organisations: domains, members, services, brands, rate agreements, two-step go-live", _organisations),
    (170, "a bulk job's rows kept in parts, so a stage decrypts only the part it makes", _job_rows_in_parts),
]


def migrate() -> list[int]:
    """Apply pending migrations; returns the versions applied."""
    applied: list[int] = []
    with database.connection_context():
        database.create_tables([SchemaVersion])
        done = {row.version for row in SchemaVersion.select()}
        for version, name, step in MIGRATIONS:
            if version in done:
                continue
            with database.atomic():
                step()
                SchemaVersion.create(version=version, name=name)
            applied.append(version)
    return applied


if __name__ == "__main__":
    from config import get_settings
    from models.db import init_database

    init_database(get_settings().database_url)
    print(f"schema migrations applied: {migrate() or 'none (up to date)'}")
