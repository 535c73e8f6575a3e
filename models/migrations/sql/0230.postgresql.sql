-- Step 230: a messages report built in the background is written in the language of the console page
-- that asked for it (issue 51); NULL, as in the rows of the release before, is Dutch; postgresql.
ALTER TABLE "message_report" ADD COLUMN "language" VARCHAR(255);
