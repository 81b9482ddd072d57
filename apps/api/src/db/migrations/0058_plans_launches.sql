-- Launch batches move into plans and plan_items (issue 41, decision 084) with their ids and numbers kept, so
-- /launches/batches/:id and "Batch #N" still mean the same batch. The shared settings go in plans.detail; a row's
-- overrides and its launch in plan_items.detail, its message in the item's reason.
CREATE SEQUENCE "plans_launches_no_seq" AS integer OWNED BY "plans"."plan_no";
--> statement-breakpoint
INSERT INTO "plans" ("id", "kind", "plan_no", "state", "detail", "error", "job_id", "created_by", "created_at",
	"updated_at")
SELECT "id", 'launches', "batch_no", "state",
	jsonb_build_object('settings', "settings", 'confirmCostly', "confirm_costly"),
	"error", "job_id", "created_by", "created_at", "updated_at"
FROM "launch_batches";
--> statement-breakpoint
INSERT INTO "plan_items" ("plan_id", "seq", "name", "name_unicode", "outcome", "reason", "status", "detail")
SELECT "batch_id", "seq", "domain_name", "domain_name_unicode", 'launch', "message", "status",
	jsonb_strip_nulls(jsonb_build_object('overrides', "overrides", 'launchId', "launch_id"))
FROM "launch_batch_rows";
--> statement-breakpoint
SELECT setval('plans_launches_no_seq', COALESCE((SELECT max("batch_no") FROM "launch_batches"), 0) + 1, false);
--> statement-breakpoint
DROP TABLE "launch_batch_rows";
--> statement-breakpoint
DROP TABLE "launch_batches";
