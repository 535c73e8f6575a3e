-- Step 210: failed messages whose fallback step is still to be taken (issue 44), for the sweep that
-- finds a chain whose message was lost; postgresql. Built CONCURRENTLY, as step 200's, outside a
-- transaction. Few rows at any time: a row leaves once its step is taken or refused.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "notification_fallback_due" ON "notification" ("completed_at") WHERE "status" IN ('permanent-failure', 'temporary-failure', 'technical-failure') AND "fallback" IS NOT NULL AND "fallback_sent_as" IS NULL AND "fallback_refused" IS NULL;
