-- Step 205: a notification's fallback chain (issue 44): the message it stands in for, the one sent
-- instead of it, the alternatives still to try (encrypted, as personalisation) and the refusal that
-- ended the chain; postgresql.
ALTER TABLE "notification" ADD COLUMN "fallback_for" UUID;
ALTER TABLE "notification" ADD COLUMN "fallback_sent_as" UUID;
ALTER TABLE "notification" ADD COLUMN "fallback" TEXT;
ALTER TABLE "notification" ADD COLUMN "fallback_refused" TEXT;
