-- Step 120: one daily store (release 0.9.0); postgresql.
DROP INDEX "dailystatuscount_service_id_day_notification_type_key_ty_12ae1a";
ALTER TABLE "daily_status_count" ADD COLUMN "purged" BOOLEAN;
UPDATE "daily_status_count" SET "purged" = FALSE;
ALTER TABLE "daily_status_count" ALTER COLUMN "purged" SET NOT NULL;
CREATE UNIQUE INDEX "dailystatuscount_service_id_day_notification_type_key_ty_428d714" ON "daily_status_count" ("service_id", "day", "notification_type", "key_type", "status", "purged");
INSERT INTO "daily_status_count" ("service_id", "day", "purged", "count", "notification_type", "key_type", "status") SELECT "t1"."service_id", "t1"."day", TRUE, "t1"."count", "t1"."notification_type", "t1"."key_type", "t1"."status" FROM "daily_count" AS "t1";
DROP TABLE "daily_count";
DROP INDEX "dailyusage_service_id_day_notification_type_postage_rate_929ba6";
ALTER TABLE "daily_usage" ADD COLUMN "purged" BOOLEAN;
UPDATE "daily_usage" SET "purged" = FALSE;
ALTER TABLE "daily_usage" ALTER COLUMN "purged" SET NOT NULL;
CREATE UNIQUE INDEX "dailyusage_service_id_day_notification_type_postage_rate_e19994e" ON "daily_usage" ("service_id", "day", "notification_type", "postage", "rate_multiplier", "billable_units", "purged");
INSERT INTO "daily_usage" ("service_id", "day", "purged", "count", "notification_type", "postage", "rate_multiplier", "billable_units") SELECT "t1"."service_id", "t1"."day", TRUE, "t1"."count", "t1"."notification_type", "t1"."postage", "t1"."rate_multiplier", "t1"."billable_units" FROM "daily_billing" AS "t1";
DROP TABLE "daily_billing";
