ALTER TABLE "jobs" ADD COLUMN "heartbeat_at" timestamp with time zone;
--> statement-breakpoint
CREATE INDEX "jobs_running_heartbeat_idx" ON "jobs" USING btree ("heartbeat_at") WHERE "state" = 'running';
