-- Step 135: sms gateway types (release 0.9.0); sqlite.
-- A NOT NULL column without a default is added by rebuilding the table as SQLite documents
-- (https://www.sqlite.org/lang_altertable.html#otheralter); the runner turns foreign keys off around it.
ALTER TABLE "sms_gateway" ADD COLUMN "type" VARCHAR(255);
UPDATE "sms_gateway" SET "type" = 'json';
CREATE TABLE "sms_gateway__tmp__" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL, "url" VARCHAR(255) NOT NULL, "token" TEXT, "priority" INTEGER NOT NULL, "supports_international" INTEGER NOT NULL, "active" INTEGER NOT NULL, "from_configuration" INTEGER NOT NULL, "created_at" DATETIME NOT NULL, "updated_at" DATETIME, "type" VARCHAR(255) NOT NULL);
INSERT INTO "sms_gateway__tmp__" ("id", "name", "url", "token", "priority", "supports_international", "active", "from_configuration", "created_at", "updated_at", "type") SELECT "id", "name", "url", "token", "priority", "supports_international", "active", "from_configuration", "created_at", "updated_at", "type" FROM "sms_gateway";
DROP TABLE "sms_gateway";
ALTER TABLE "sms_gateway__tmp__" RENAME TO "sms_gateway";
CREATE UNIQUE INDEX "smsgateway_name" ON "sms_gateway" ("name");
ALTER TABLE "sms_gateway" ADD COLUMN "account_sid" VARCHAR(255);
ALTER TABLE "sms_gateway" ADD COLUMN "messaging_service_sid" VARCHAR(255);
