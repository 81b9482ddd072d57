-- Fleet plans (health fixes, reverts and desired-state plans among them) move into plans and plan_items (issue 41,
-- decision 084) with their ids and numbers kept, so /fleet/:id and "Fleet plan #N" still mean the same plan. What is
-- the fleet's own goes in the typed JSON: the action in plans.detail, the account's e-mail, what planning read and
-- decided (before, after, seen) and a state plan's desired state and changes in plan_items.detail. The account is
-- the item's lane.
CREATE SEQUENCE "plans_fleet_no_seq" AS integer OWNED BY "plans"."plan_no";
--> statement-breakpoint
CREATE UNIQUE INDEX "plan_items_domain_uq" ON "plan_items" USING btree ("plan_id","domain_id");
--> statement-breakpoint
INSERT INTO "plans" ("id", "kind", "plan_no", "state", "selection", "detail", "total", "error", "job_id", "created_by",
	"created_at", "planned_at", "started_at", "finished_at", "updated_at")
SELECT "id", 'fleet', "plan_no", "state", "selection", jsonb_build_object('action', "action"), "total", "error",
	"job_id", "created_by", "created_at", "planned_at", "started_at", "finished_at", "updated_at"
FROM "fleet_plans";
--> statement-breakpoint
INSERT INTO "plan_items" ("plan_id", "seq", "domain_id", "name", "lane", "outcome", "reason", "status", "error",
	"finished_at", "undo", "forced", "detail")
SELECT "plan_id", "seq", "domain_id", "domain_name", "cloud_id"::text, "outcome", "reason", "status", "error",
	"finished_at", "undo", "forced",
	jsonb_strip_nulls(jsonb_build_object('cloudEmail', "cloud_email", 'before', "before", 'after', "after",
		'seen', "seen", 'desired', "desired", 'changes', "changes"))
FROM "fleet_plan_items";
--> statement-breakpoint
SELECT setval('plans_fleet_no_seq', COALESCE((SELECT max("plan_no") FROM "fleet_plans"), 0) + 1, false);
--> statement-breakpoint
DROP TABLE "fleet_plan_items";
--> statement-breakpoint
DROP TABLE "fleet_plans";
