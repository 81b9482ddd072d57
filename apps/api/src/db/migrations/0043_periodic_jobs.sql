-- Issue 40. Periodic housekeeping runs (the schedule's jobs: alerts, health cycles) are marked, so the operator's
-- Jobs screen and the dashboard's running jobs leave them out by default (a filter shows them).
ALTER TABLE "jobs" ADD COLUMN "periodic" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE "jobs" SET "periodic" = true WHERE "created_by" = 'schedule';
--> statement-breakpoint
CREATE INDEX "jobs_periodic_no_idx" ON "jobs" USING btree ("periodic","job_no");
