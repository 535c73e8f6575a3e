-- Step 160: api key expiry (release 0.9.0); sqlite.
ALTER TABLE "apikey" ADD COLUMN "expires_at" DATETIME;
ALTER TABLE "apikey" ADD COLUMN "expiry_warned_at" DATETIME;
