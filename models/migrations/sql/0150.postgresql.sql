-- Step 150: service.time_zone (release 0.9.0); postgresql.
ALTER TABLE "service" ADD COLUMN "time_zone" TEXT;
UPDATE "service" SET "time_zone" = 'Europe/Amsterdam';
ALTER TABLE "service" ALTER COLUMN "time_zone" SET NOT NULL;
