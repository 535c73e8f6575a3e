-- Step 135: sms gateway types (release 0.9.0); postgresql.
ALTER TABLE "sms_gateway" ADD COLUMN "type" VARCHAR(255);
UPDATE "sms_gateway" SET "type" = 'json';
ALTER TABLE "sms_gateway" ALTER COLUMN "type" SET NOT NULL;
ALTER TABLE "sms_gateway" ADD COLUMN "account_sid" VARCHAR(255);
ALTER TABLE "sms_gateway" ADD COLUMN "messaging_service_sid" VARCHAR(255);
