-- One plans table and one items table for every kind of plan (issue 41, decision 084). Imports are the first kind:
-- their plans and names move here with their ids and numbers kept, so /imports/:id and "Import #N" still mean the
-- same plan. Each kind numbers its plans apart (a sequence per kind, owned by plans.plan_no so that a TRUNCATE ...
-- RESTART IDENTITY restarts it too).
CREATE TABLE "plans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"plan_no" integer NOT NULL,
	"state" text DEFAULT 'planning' NOT NULL,
	"selection" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"error" text,
	"job_id" uuid,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"planned_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "plans_kind_no_uq" ON "plans" USING btree ("kind","plan_no");
--> statement-breakpoint
CREATE TABLE "plan_items" (
	"plan_id" uuid NOT NULL REFERENCES "plans"("id") ON DELETE CASCADE,
	"seq" integer NOT NULL,
	"domain_id" uuid,
	"name" text NOT NULL,
	"name_unicode" text,
	"lane" text,
	"outcome" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" text,
	"finished_at" timestamp with time zone,
	"undo" jsonb,
	"forced" boolean DEFAULT false NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "plan_items_pk" PRIMARY KEY ("plan_id","seq")
);
--> statement-breakpoint
CREATE INDEX "plan_items_status_idx" ON "plan_items" USING btree ("plan_id","status","seq");
--> statement-breakpoint
CREATE INDEX "plan_items_outcome_idx" ON "plan_items" USING btree ("plan_id","outcome","seq");
--> statement-breakpoint
CREATE SEQUENCE "plans_imports_no_seq" AS integer OWNED BY "plans"."plan_no";
--> statement-breakpoint
INSERT INTO "plans" ("id", "kind", "plan_no", "state", "selection", "detail", "error", "job_id", "created_by",
	"created_at", "planned_at", "started_at", "finished_at", "updated_at")
SELECT "id", 'imports', "plan_no", "state",
	jsonb_build_object('source', "source", 'sourceId', "source_id", 'sourceLabel', "source_label"),
	jsonb_build_object('sourceUsers', to_jsonb("source_users")),
	"error", "job_id", "created_by", "created_at", "planned_at", "started_at", "finished_at", "updated_at"
FROM "import_plans";
--> statement-breakpoint
INSERT INTO "plan_items" ("plan_id", "seq", "domain_id", "name", "name_unicode", "outcome", "reason", "status",
	"error", "finished_at", "detail")
SELECT "plan_id", "seq", "domain_id", "name", "name_unicode", "outcome", "reason", "status", "error", "finished_at",
	"detail"
FROM "import_items";
--> statement-breakpoint
SELECT setval('plans_imports_no_seq', COALESCE((SELECT max("plan_no") FROM "import_plans"), 0) + 1, false);
--> statement-breakpoint
DROP TABLE "import_items";
--> statement-breakpoint
DROP TABLE "import_plans";
