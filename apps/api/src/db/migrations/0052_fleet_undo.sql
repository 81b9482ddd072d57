-- Issue 44. What a fleet run's step changed on its domain, in a form that can be put back (fleet.revert.ts): the
-- values before and after per setting, field, record set, redirect list or firewall template set. Null for a step
-- that changed nothing, or one made before this column existed (its revert row says so).
ALTER TABLE "fleet_plan_items" ADD COLUMN "undo" jsonb;
--> statement-breakpoint
-- A revert's row whose domain changed since the run is left alone unless the operator ticks it.
ALTER TABLE "fleet_plan_items" ADD COLUMN "forced" boolean DEFAULT false NOT NULL;
