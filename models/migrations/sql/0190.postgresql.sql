-- Step 190: each sms gateway's pace, NULL for its type's default (issue 41); postgresql.
ALTER TABLE "sms_gateway" ADD COLUMN "max_per_second" INTEGER;
ALTER TABLE "sms_gateway" ADD COLUMN "max_in_flight" INTEGER;
