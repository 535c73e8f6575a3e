-- Step 210: failed messages whose fallback step is still to be taken (issue 44), for the sweep that
-- finds a chain whose message was lost; sqlite (no concurrent builds: the step runs in its transaction).
CREATE INDEX IF NOT EXISTS "notification_fallback_due" ON "notification" ("completed_at") WHERE "status" IN ('permanent-failure', 'temporary-failure', 'technical-failure') AND "fallback" IS NOT NULL AND "fallback_sent_as" IS NULL AND "fallback_refused" IS NULL;
