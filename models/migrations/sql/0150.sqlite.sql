-- Step 150: service.time_zone (release 0.9.0); sqlite.
-- A NOT NULL column without a default is added by rebuilding the table as SQLite documents
-- (https://www.sqlite.org/lang_altertable.html#otheralter); the runner turns foreign keys off around it.
ALTER TABLE "service" ADD COLUMN "time_zone" TEXT;
UPDATE "service" SET "time_zone" = 'Europe/Amsterdam';
CREATE TABLE "service__tmp__" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL, "active" INTEGER NOT NULL, "trial_mode" INTEGER NOT NULL, "permissions" TEXT NOT NULL, "rate_limit" INTEGER NOT NULL, "sms_daily_limit" INTEGER NOT NULL, "email_daily_limit" INTEGER NOT NULL, "letter_daily_limit" INTEGER NOT NULL, "international_sms_daily_limit" INTEGER NOT NULL, "email_retention_days" INTEGER NOT NULL, "sms_retention_days" INTEGER NOT NULL, "letter_retention_days" INTEGER NOT NULL, "file_download_contact" VARCHAR(255), "hosted_unsubscribe" INTEGER NOT NULL, "created_at" DATETIME NOT NULL, "updated_at" DATETIME, "time_zone" TEXT NOT NULL);
INSERT INTO "service__tmp__" ("id", "name", "active", "trial_mode", "permissions", "rate_limit", "sms_daily_limit", "email_daily_limit", "letter_daily_limit", "international_sms_daily_limit", "email_retention_days", "sms_retention_days", "letter_retention_days", "file_download_contact", "hosted_unsubscribe", "created_at", "updated_at", "time_zone") SELECT "id", "name", "active", "trial_mode", "permissions", "rate_limit", "sms_daily_limit", "email_daily_limit", "letter_daily_limit", "international_sms_daily_limit", "email_retention_days", "sms_retention_days", "letter_retention_days", "file_download_contact", "hosted_unsubscribe", "created_at", "updated_at", "time_zone" FROM "service";
DROP TABLE "service";
ALTER TABLE "service__tmp__" RENAME TO "service";
CREATE UNIQUE INDEX "service_name" ON "service" ("name");
