-- Step 205: a notification's place in a fallback chain (issue 44), in a table beside `notification`
-- (the previous release's workers read `notification` rows whole, so a column added there would stop
-- them): the message it stands in for, the one sent instead, the alternatives left (encrypted, as
-- personalisation), when it failed with one left, and the refusal that ended the chain; sqlite.
CREATE TABLE IF NOT EXISTS "notification_fallback" ("notification_id" TEXT NOT NULL PRIMARY KEY, "fallback_for" TEXT, "sent_as" TEXT, "alternatives" TEXT, "failed_at" DATETIME, "refused" TEXT, FOREIGN KEY ("notification_id") REFERENCES "notification" ("id") ON DELETE CASCADE);
-- Failed messages whose step is neither taken nor refused, for the sweep.
CREATE INDEX IF NOT EXISTS "notification_fallback_step_due" ON "notification_fallback" ("failed_at") WHERE "failed_at" IS NOT NULL AND "sent_as" IS NULL AND "refused" IS NULL;
