-- Step 155: account settings (release 0.9.0); sqlite.
ALTER TABLE "user" ADD COLUMN "mobile_number" VARCHAR(255);
CREATE TABLE "emailchange" ("id" INTEGER NOT NULL PRIMARY KEY, "user_id" TEXT NOT NULL, "new_email_address" VARCHAR(255) NOT NULL, "token_hash" VARCHAR(255) NOT NULL, "created_at" DATETIME NOT NULL, "expires_at" DATETIME NOT NULL, "used_at" DATETIME, FOREIGN KEY ("user_id") REFERENCES "user" ("id") ON DELETE CASCADE);
CREATE INDEX "emailchange_user_id" ON "emailchange" ("user_id");
CREATE UNIQUE INDEX "emailchange_token_hash" ON "emailchange" ("token_hash");
