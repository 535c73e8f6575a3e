-- Step 180: each service's notifications counted per UTC day of creation and per kind, kept by the
-- database as rows are written (issue 45); postgresql.
-- held_count_change is a journal written by statement-level triggers (one row per kind a statement
-- changed, never an UPDATE, so concurrent writers never wait on each other); pipeline/stages/held_counts.py
-- folds it into held_count. Unknown values are stored as '' (postage), 1 (rate multiplier) and -1
-- (billable units), so that a kind is a key a unique index can hold.
-- A function body keeps each ';' inside off the end of a line: the runner ends a statement there.
CREATE TABLE "held_count" ("id" BIGSERIAL NOT NULL PRIMARY KEY, "service_id" UUID NOT NULL, "day" DATE NOT NULL, "notification_type" VARCHAR(255) NOT NULL, "key_type" VARCHAR(255) NOT NULL, "status" VARCHAR(255) NOT NULL, "postage" VARCHAR(255) NOT NULL, "rate_multiplier" INTEGER NOT NULL, "billable_units" INTEGER NOT NULL, "count" BIGINT NOT NULL, FOREIGN KEY ("service_id") REFERENCES "service" ("id") ON DELETE CASCADE);
CREATE UNIQUE INDEX "held_count_kind" ON "held_count" ("service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units");
CREATE TABLE "held_count_change" ("id" BIGSERIAL NOT NULL PRIMARY KEY, "service_id" UUID NOT NULL, "day" DATE NOT NULL, "notification_type" VARCHAR(255) NOT NULL, "key_type" VARCHAR(255) NOT NULL, "status" VARCHAR(255) NOT NULL, "postage" VARCHAR(255) NOT NULL, "rate_multiplier" INTEGER NOT NULL, "billable_units" INTEGER NOT NULL, "change" BIGINT NOT NULL);
CREATE INDEX "heldcountchange_service_id_day" ON "held_count_change" ("service_id", "day");
CREATE TABLE "held_count_start" ("id" INTEGER NOT NULL PRIMARY KEY, "counted_from" DATE NOT NULL);
CREATE OR REPLACE FUNCTION "held_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO "held_count_change" ("service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units", "change")
  SELECT "service_id", CAST("created_at" AS DATE), "notification_type", "key_type", "status", COALESCE("postage", ''), COALESCE(NULLIF("rate_multiplier", 0), 1), COALESCE("billable_units", -1), COUNT(*)
  FROM "new_rows" GROUP BY 1, 2, 3, 4, 5, 6, 7, 8; RETURN NULL; END $$;
CREATE OR REPLACE FUNCTION "held_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO "held_count_change" ("service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units", "change")
  SELECT "service_id", CAST("created_at" AS DATE), "notification_type", "key_type", "status", COALESCE("postage", ''), COALESCE(NULLIF("rate_multiplier", 0), 1), COALESCE("billable_units", -1), -COUNT(*)
  FROM "old_rows" GROUP BY 1, 2, 3, 4, 5, 6, 7, 8; RETURN NULL; END $$;
CREATE OR REPLACE FUNCTION "held_count_updated"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO "held_count_change" ("service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units", "change")
  SELECT "service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier", "billable_units", SUM("change")
  FROM (SELECT "service_id", CAST("created_at" AS DATE) AS "day", "notification_type", "key_type", "status", COALESCE("postage", '') AS "postage", COALESCE(NULLIF("rate_multiplier", 0), 1) AS "rate_multiplier", COALESCE("billable_units", -1) AS "billable_units", -1 AS "change" FROM "old_rows"
        UNION ALL
        SELECT "service_id", CAST("created_at" AS DATE), "notification_type", "key_type", "status", COALESCE("postage", ''), COALESCE(NULLIF("rate_multiplier", 0), 1), COALESCE("billable_units", -1), 1 FROM "new_rows") AS "moved"
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING SUM("change") <> 0; RETURN NULL; END $$;
CREATE TRIGGER "notification_held_count_inserted" AFTER INSERT ON "notification" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "held_count_inserted"();
CREATE TRIGGER "notification_held_count_deleted" AFTER DELETE ON "notification" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "held_count_deleted"();
CREATE TRIGGER "notification_held_count_updated" AFTER UPDATE ON "notification" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "held_count_updated"();
-- After the triggers, whose lock waits for every write under way: a notification already held then is
-- not counted, so a database that holds any is counted from the next UTC day on (the days before are
-- still read from their rows, core/daily_figures.py); a new one from the start.
INSERT INTO "held_count_start" ("id", "counted_from") SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM "notification") THEN CAST(now() AT TIME ZONE 'UTC' AS DATE) + 1 ELSE DATE '2000-01-01' END;
