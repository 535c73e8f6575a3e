-- Step 215: the follow-up outbox (issue 50): a queue message that follows a committed change (a
-- service's callback, a print batch's hand-over, a messages report) is written in the change's own
-- transaction and deleted once the broker has it, so a process that dies between the commit and the
-- send leaves the row for the periodic relay; postgresql. A new table: the previous release never
-- reads it.
CREATE TABLE IF NOT EXISTS "follow_up" ("id" BIGSERIAL NOT NULL PRIMARY KEY, "queue_name" VARCHAR(255) NOT NULL, "actor_name" VARCHAR(255) NOT NULL, "args" TEXT NOT NULL, "created_at" TIMESTAMP NOT NULL);
