-- Step 155: account settings (release 0.9.0); postgresql.
ALTER TABLE "user" ADD COLUMN "mobile_number" VARCHAR(255);
CREATE TABLE "emailchange" ("id" SERIAL NOT NULL PRIMARY KEY, "user_id" UUID NOT NULL, "new_email_address" VARCHAR(255) NOT NULL, "token_hash" VARCHAR(255) NOT NULL, "created_at" TIMESTAMP NOT NULL, "expires_at" TIMESTAMP NOT NULL, "used_at" TIMESTAMP, FOREIGN KEY ("user_id") REFERENCES "user" ("id") ON DELETE CASCADE);
CREATE INDEX "emailchange_user_id" ON "emailchange" ("user_id");
CREATE UNIQUE INDEX "emailchange_token_hash" ON "emailchange" ("token_hash");
