-- Step 160: api key expiry (release 0.9.0); postgresql.
ALTER TABLE "apikey" ADD COLUMN "expires_at" TIMESTAMP;
ALTER TABLE "apikey" ADD COLUMN "expiry_warned_at" TIMESTAMP;
