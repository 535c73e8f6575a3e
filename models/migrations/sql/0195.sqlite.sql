-- Step 195: a bulk job's rows kept in parts of 1,000, each encrypted on its own, taken by the chunk
-- that sends them (issue 45); sqlite. Jobs uploaded before keep their rows where they were until
-- the jobs process splits them once (pipeline/stages/jobs/rows.py).
CREATE TABLE "job_rows" ("job_id" TEXT NOT NULL, "part" INTEGER NOT NULL, "first_row" INTEGER NOT NULL, "rows" TEXT NOT NULL, PRIMARY KEY ("job_id", "part"), FOREIGN KEY ("job_id") REFERENCES "job" ("id") ON DELETE CASCADE);
