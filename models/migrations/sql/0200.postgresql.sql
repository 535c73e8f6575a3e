-- Step 200: the lists' indexes for a channel filter without a status and for the "failed" filter
-- (issue 45); postgresql. Built CONCURRENTLY, as step 185's, outside a transaction a statement at a time.
-- Paging a service's notifications of one channel newest first: a channel filter reads one range per
-- channel rather than one per (channel, status); planning a merge of 26 ranges took longer than reading.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "notification_service_id_key_type_channel_created_at_id" ON "notification" ("service_id", "key_type", "notification_type", "created_at", "id");
-- The same for failed rows only: "failed" (five statuses) reads one range per channel.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "notification_service_id_key_type_channel_failed_created_at_id" ON "notification" ("service_id", "key_type", "notification_type", "created_at", "id") WHERE "status" IN ('permanent-failure', 'temporary-failure', 'technical-failure', 'virus-scan-failed', 'validation-failed');
