-- Issue 45. A fleet plan of the kind `state` (a desired-state file) keeps each domain's desired state on its item,
-- and the differences planning found, one per record or setting. A name of the file that the console does not hold
-- is a refused item without a domain.
ALTER TABLE "fleet_plan_items" ALTER COLUMN "domain_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "fleet_plan_items" ADD COLUMN "desired" jsonb;--> statement-breakpoint
ALTER TABLE "fleet_plan_items" ADD COLUMN "changes" jsonb;
