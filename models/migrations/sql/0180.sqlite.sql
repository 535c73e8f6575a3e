-- Step 180: each service's notifications counted per UTC day of creation and per kind, kept by the
-- database as rows are written (issue 45); sqlite.
-- Row-level triggers write the journal held_count_change; pipeline/stages/held_counts.py folds it into
-- held_count. Unknown values are stored as '' (postage), 1 (rate multiplier) and -1 (billable units).
-- A trigger body keeps each ';' inside off the end of a line: the runner ends a statement there.
CREATE TABLE "held_count" ("id" INTEGER NOT NULL PRIMARY KEY, "service_id" TEXT NOT NULL, "day" DATE NOT NULL, "notification_type" VARCHAR(255) NOT NULL, "key_type" VARCHAR(255) NOT NULL, "status" VARCHAR(255) NOT NULL, "postage" VARCHAR(255) NOT NULL, "rate_multiplier" INTEGER NOT NULL, "billable_units" INTEGER NOT NULL, "count" INTEGER NOT NULL, FOREIGN KEY ("service_id") REFERENCES "service" ("id") ON DELETE CASCADE);
CREATE UNIQUE INDEX "held_count_kind" ON "held_count" ("service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units");
CREATE TABLE "held_count_change" ("id" INTEGER NOT NULL PRIMARY KEY, "service_id" TEXT NOT NULL, "day" DATE NOT NULL, "notification_type" VARCHAR(255) NOT NULL, "key_type" VARCHAR(255) NOT NULL, "status" VARCHAR(255) NOT NULL, "postage" VARCHAR(255) NOT NULL, "rate_multiplier" INTEGER NOT NULL, "billable_units" INTEGER NOT NULL, "change" INTEGER NOT NULL);
CREATE INDEX "heldcountchange_service_id_day" ON "held_count_change" ("service_id", "day");
CREATE TABLE "held_count_start" ("id" INTEGER NOT NULL PRIMARY KEY, "counted_from" DATE NOT NULL);
CREATE TRIGGER "notification_held_count_inserted" AFTER INSERT ON "notification" BEGIN
  INSERT INTO "held_count_change" ("service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units", "change")
  VALUES (NEW."service_id", DATE(NEW."created_at"), NEW."notification_type", NEW."key_type", NEW."status", COALESCE(NEW."postage", ''), COALESCE(NULLIF(NEW."rate_multiplier", 0), 1), COALESCE(NEW."billable_units", -1), 1); END;
CREATE TRIGGER "notification_held_count_deleted" AFTER DELETE ON "notification" BEGIN
  INSERT INTO "held_count_change" ("service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units", "change")
  VALUES (OLD."service_id", DATE(OLD."created_at"), OLD."notification_type", OLD."key_type", OLD."status", COALESCE(OLD."postage", ''), COALESCE(NULLIF(OLD."rate_multiplier", 0), 1), COALESCE(OLD."billable_units", -1), -1); END;
CREATE TRIGGER "notification_held_count_updated" AFTER UPDATE OF "service_id", "created_at", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units" ON "notification"
  WHEN OLD."service_id" IS NOT NEW."service_id" OR OLD."created_at" IS NOT NEW."created_at" OR OLD."notification_type" IS NOT NEW."notification_type" OR OLD."key_type" IS NOT NEW."key_type" OR OLD."status" IS NOT NEW."status" OR OLD."postage" IS NOT NEW."postage" OR OLD."rate_multiplier" IS NOT NEW."rate_multiplier" OR OLD."billable_units" IS NOT NEW."billable_units" BEGIN
  INSERT INTO "held_count_change" ("service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units", "change")
  VALUES (OLD."service_id", DATE(OLD."created_at"), OLD."notification_type", OLD."key_type", OLD."status", COALESCE(OLD."postage", ''), COALESCE(NULLIF(OLD."rate_multiplier", 0), 1), COALESCE(OLD."billable_units", -1), -1),
         (NEW."service_id", DATE(NEW."created_at"), NEW."notification_type", NEW."key_type", NEW."status", COALESCE(NEW."postage", ''), COALESCE(NULLIF(NEW."rate_multiplier", 0), 1), COALESCE(NEW."billable_units", -1), 1); END;
-- A database that holds notifications already is counted from the next UTC day on (the days before are
-- still read from their rows, core/daily_figures.py); a new one from the start.
INSERT INTO "held_count_start" ("id", "counted_from") SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM "notification") THEN DATE('now', '+1 day') ELSE '2000-01-01' END;
