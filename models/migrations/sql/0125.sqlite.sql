-- Step 125: notification.retry_at (release 0.9.0); sqlite.
ALTER TABLE "notification" ADD COLUMN "retry_at" DATETIME;
