-- Step 185: the lists' indexes for a status or channel filter, and the dashboard's scheduled sends
-- (issue 45); postgresql. Built CONCURRENTLY, so the release running beside keeps writing while the
-- notification table is indexed: the runner runs this step outside a transaction, a statement at a
-- time, and builds again an index an interrupted run left invalid (models/migrations/__init__.py).
-- Paging a service's notifications of one channel and one status newest first: a filter on statuses
-- or channels reads one range per (channel, status) and merges them (models/queries.py).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "notification_service_id_key_type_kind_created_at_id" ON "notification" ("service_id", "key_type", "notification_type", "status", "created_at", "id");
-- The sends a service has scheduled and not yet handed on: few, whatever the table's size.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "notification_service_id_scheduled_for" ON "notification" ("service_id", "scheduled_for") WHERE "status" = 'created' AND "scheduled_for" IS NOT NULL;
