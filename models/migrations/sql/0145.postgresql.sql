-- Step 145: held print batches (release 0.9.0); postgresql.
CREATE TABLE "held_print_batch" ("batch_id" VARCHAR(255) NOT NULL PRIMARY KEY, "reason" TEXT NOT NULL, "held_since" TIMESTAMP NOT NULL, "tried_at" TIMESTAMP NOT NULL, "trying_since" TIMESTAMP);
