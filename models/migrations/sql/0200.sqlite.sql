-- Step 200: the lists' indexes for a channel filter without a status and for the "failed" filter
-- (issue 45); sqlite (no concurrent builds: the step runs in its transaction as every other).
CREATE INDEX IF NOT EXISTS "notification_service_id_key_type_channel_created_at_id" ON "notification" ("service_id", "key_type", "notification_type", "created_at", "id");
CREATE INDEX IF NOT EXISTS "notification_service_id_key_type_channel_failed_created_at_id" ON "notification" ("service_id", "key_type", "notification_type", "created_at", "id") WHERE "status" IN ('permanent-failure', 'temporary-failure', 'technical-failure', 'virus-scan-failed', 'validation-failed');
