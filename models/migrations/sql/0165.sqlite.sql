-- Step 165: organisations (release 0.9.0); sqlite.
-- A NOT NULL column without a default is added by rebuilding the table as SQLite documents
-- (https://www.sqlite.org/lang_altertable.html#otheralter); the runner turns foreign keys off around it.
CREATE TABLE "organisation" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL, "kind" VARCHAR(255) NOT NULL, "language" VARCHAR(255) NOT NULL, "time_zone" VARCHAR(255) NOT NULL, "rate_table" VARCHAR(255) NOT NULL, "created_at" DATETIME NOT NULL, "updated_at" DATETIME);
CREATE UNIQUE INDEX "organisation_name" ON "organisation" ("name");
CREATE TABLE "organisation_domain" ("id" INTEGER NOT NULL PRIMARY KEY, "organisation_id" TEXT NOT NULL, "domain" VARCHAR(255) NOT NULL, "created_at" DATETIME NOT NULL, FOREIGN KEY ("organisation_id") REFERENCES "organisation" ("id") ON DELETE CASCADE);
CREATE INDEX "organisationdomain_organisation_id" ON "organisation_domain" ("organisation_id");
CREATE UNIQUE INDEX "organisationdomain_domain" ON "organisation_domain" ("domain");
CREATE TABLE "organisation_email_brand" ("id" INTEGER NOT NULL PRIMARY KEY, "organisation_id" TEXT NOT NULL, "email_brand_id" TEXT NOT NULL, FOREIGN KEY ("organisation_id") REFERENCES "organisation" ("id") ON DELETE CASCADE, FOREIGN KEY ("email_brand_id") REFERENCES "emailbrand" ("id") ON DELETE CASCADE);
CREATE INDEX "organisationemailbrand_organisation_id" ON "organisation_email_brand" ("organisation_id");
CREATE INDEX "organisationemailbrand_email_brand_id" ON "organisation_email_brand" ("email_brand_id");
CREATE UNIQUE INDEX "organisationemailbrand_organisation_id_email_brand_id" ON "organisation_email_brand" ("organisation_id", "email_brand_id");
CREATE TABLE "organisation_event" ("id" TEXT NOT NULL PRIMARY KEY, "organisation_id" TEXT NOT NULL, "action" VARCHAR(255) NOT NULL, "subject_id" VARCHAR(255), "actor_kind" VARCHAR(255) NOT NULL, "actor_id" VARCHAR(255) NOT NULL, "actor_name" VARCHAR(255) NOT NULL, "before" TEXT, "after" TEXT, "created_at" DATETIME NOT NULL);
CREATE INDEX "organisationevent_organisation_id_created_at" ON "organisation_event" ("organisation_id", "created_at");
CREATE TABLE "organisation_letter_brand" ("id" INTEGER NOT NULL PRIMARY KEY, "organisation_id" TEXT NOT NULL, "letter_brand_id" TEXT NOT NULL, FOREIGN KEY ("organisation_id") REFERENCES "organisation" ("id") ON DELETE CASCADE, FOREIGN KEY ("letter_brand_id") REFERENCES "letterbrand" ("id") ON DELETE CASCADE);
CREATE INDEX "organisationletterbrand_organisation_id" ON "organisation_letter_brand" ("organisation_id");
CREATE INDEX "organisationletterbrand_letter_brand_id" ON "organisation_letter_brand" ("letter_brand_id");
CREATE UNIQUE INDEX "organisationletterbrand_organisation_id_letter_brand_id" ON "organisation_letter_brand" ("organisation_id", "letter_brand_id");
CREATE TABLE "organisation_service" ("service_id" TEXT NOT NULL PRIMARY KEY, "organisation_id" TEXT NOT NULL, "created_at" DATETIME NOT NULL, FOREIGN KEY ("service_id") REFERENCES "service" ("id") ON DELETE CASCADE, FOREIGN KEY ("organisation_id") REFERENCES "organisation" ("id") ON DELETE CASCADE);
CREATE INDEX "organisationservice_organisation_id" ON "organisation_service" ("organisation_id");
CREATE TABLE "organisation_user" ("id" INTEGER NOT NULL PRIMARY KEY, "organisation_id" TEXT NOT NULL, "user_id" TEXT NOT NULL, "role" VARCHAR(255) NOT NULL, "created_at" DATETIME NOT NULL, FOREIGN KEY ("organisation_id") REFERENCES "organisation" ("id") ON DELETE CASCADE, FOREIGN KEY ("user_id") REFERENCES "user" ("id") ON DELETE CASCADE);
CREATE INDEX "organisationuser_organisation_id" ON "organisation_user" ("organisation_id");
CREATE INDEX "organisationuser_user_id" ON "organisation_user" ("user_id");
CREATE UNIQUE INDEX "organisationuser_organisation_id_user_id" ON "organisation_user" ("organisation_id", "user_id");
ALTER TABLE "go_live_request" ADD COLUMN "expected_volumes" TEXT;
ALTER TABLE "go_live_request" ADD COLUMN "recipients" TEXT;
ALTER TABLE "go_live_request" ADD COLUMN "organisation_id" TEXT;
ALTER TABLE "go_live_request" ADD COLUMN "organisation_approved_by_name" VARCHAR(255);
ALTER TABLE "go_live_request" ADD COLUMN "organisation_approved_at" DATETIME;
ALTER TABLE "rate" ADD COLUMN "rate_table" VARCHAR(255);
UPDATE "rate" SET "rate_table" = 'standard';
CREATE TABLE "rate__tmp__" ("id" TEXT NOT NULL PRIMARY KEY, "notification_type" VARCHAR(255) NOT NULL, "postage" VARCHAR(255), "valid_from" DATE NOT NULL, "rate" DECIMAL(12, 4) NOT NULL, "sheet_rate" DECIMAL(12, 4), "created_at" DATETIME NOT NULL, "rate_table" VARCHAR(255) NOT NULL);
INSERT INTO "rate__tmp__" ("id", "notification_type", "postage", "valid_from", "rate", "sheet_rate", "created_at", "rate_table") SELECT "id", "notification_type", "postage", "valid_from", "rate", "sheet_rate", "created_at", "rate_table" FROM "rate";
DROP TABLE "rate";
ALTER TABLE "rate__tmp__" RENAME TO "rate";
CREATE UNIQUE INDEX "rate_rate_table_notification_type_postage_valid_from" ON "rate" ("rate_table", "notification_type", "postage", "valid_from");
