-- Step 120: one daily store (release 0.9.0); sqlite.
-- A NOT NULL column without a default is added by rebuilding the table as SQLite documents
-- (https://www.sqlite.org/lang_altertable.html#otheralter); the runner turns foreign keys off around it.
DROP INDEX "dailystatuscount_service_id_day_notification_type_key_ty_12ae1a8";
ALTER TABLE "daily_status_count" ADD COLUMN "purged" INTEGER;
UPDATE "daily_status_count" SET "purged" = 0;
CREATE TABLE "daily_status_count__tmp__" ("id" INTEGER NOT NULL PRIMARY KEY, "service_id" TEXT NOT NULL, "day" DATE NOT NULL, "notification_type" VARCHAR(255) NOT NULL, "key_type" VARCHAR(255) NOT NULL, "status" VARCHAR(255) NOT NULL, "count" INTEGER NOT NULL, "purged" INTEGER NOT NULL, FOREIGN KEY ("service_id") REFERENCES "service" ("id") ON DELETE CASCADE);
INSERT INTO "daily_status_count__tmp__" ("id", "service_id", "day", "notification_type", "key_type", "status", "count", "purged") SELECT "id", "service_id", "day", "notification_type", "key_type", "status", "count", "purged" FROM "daily_status_count";
DROP TABLE "daily_status_count";
ALTER TABLE "daily_status_count__tmp__" RENAME TO "daily_status_count";
CREATE UNIQUE INDEX "dailystatuscount_service_id_day_notification_type_key_ty_428d714" ON "daily_status_count" ("service_id", "day", "notification_type", "key_type", "status", "purged");
INSERT INTO "daily_status_count" ("service_id", "day", "purged", "count", "notification_type", "key_type", "status") SELECT "t1"."service_id", "t1"."day", 1, "t1"."count", "t1"."notification_type", "t1"."key_type", "t1"."status" FROM "daily_count" AS "t1";
DROP TABLE "daily_count";
DROP INDEX "dailyusage_service_id_day_notification_type_postage_rate_929ba6c";
ALTER TABLE "daily_usage" ADD COLUMN "purged" INTEGER;
UPDATE "daily_usage" SET "purged" = 0;
CREATE TABLE "daily_usage__tmp__" ("id" INTEGER NOT NULL PRIMARY KEY, "service_id" TEXT NOT NULL, "day" DATE NOT NULL, "notification_type" VARCHAR(255) NOT NULL, "postage" VARCHAR(255) NOT NULL, "rate_multiplier" INTEGER NOT NULL, "billable_units" INTEGER NOT NULL, "count" INTEGER NOT NULL, "purged" INTEGER NOT NULL, FOREIGN KEY ("service_id") REFERENCES "service" ("id") ON DELETE CASCADE);
INSERT INTO "daily_usage__tmp__" ("id", "service_id", "day", "notification_type", "postage", "rate_multiplier", "billable_units", "count", "purged") SELECT "id", "service_id", "day", "notification_type", "postage", "rate_multiplier", "billable_units", "count", "purged" FROM "daily_usage";
DROP TABLE "daily_usage";
ALTER TABLE "daily_usage__tmp__" RENAME TO "daily_usage";
CREATE UNIQUE INDEX "dailyusage_service_id_day_notification_type_postage_rate_e19994e" ON "daily_usage" ("service_id", "day", "notification_type", "postage", "rate_multiplier", "billable_units", "purged");
INSERT INTO "daily_usage" ("service_id", "day", "purged", "count", "notification_type", "postage", "rate_multiplier", "billable_units") SELECT "t1"."service_id", "t1"."day", 1, "t1"."count", "t1"."notification_type", "t1"."postage", "t1"."rate_multiplier", "t1"."billable_units" FROM "daily_billing" AS "t1";
DROP TABLE "daily_billing";
