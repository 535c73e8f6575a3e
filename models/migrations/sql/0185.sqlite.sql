-- Step 185: the lists' indexes for a status or channel filter, and the dashboard's scheduled sends
-- (issue 45); sqlite (no concurrent builds: the step runs in its transaction as every other).
CREATE INDEX IF NOT EXISTS "notification_service_id_key_type_kind_created_at_id" ON "notification" ("service_id", "key_type", "notification_type", "status", "created_at", "id");
CREATE INDEX IF NOT EXISTS "notification_service_id_scheduled_for" ON "notification" ("service_id", "scheduled_for") WHERE "status" = 'created' AND "scheduled_for" IS NOT NULL;
