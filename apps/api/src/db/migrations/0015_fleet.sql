CREATE TABLE "cloudflare_budget_spend" (
	"key" text NOT NULL,
	"t" bigint NOT NULL,
	"background" boolean NOT NULL,
	"owner" text
);
--> statement-breakpoint
CREATE INDEX "cloudflare_budget_spend_key_t_idx" ON "cloudflare_budget_spend" USING btree ("key","t");
--> statement-breakpoint
CREATE TABLE "fleet_plans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"plan_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "fleet_plans_plan_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"action" jsonb NOT NULL,
	"selection" jsonb NOT NULL,
	"state" text DEFAULT 'planning' NOT NULL,
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
CREATE UNIQUE INDEX "fleet_plans_plan_no_uq" ON "fleet_plans" USING btree ("plan_no");
--> statement-breakpoint
CREATE TABLE "fleet_plan_items" (
	"plan_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"domain_id" uuid NOT NULL,
	"domain_name" text NOT NULL,
	"cloud_id" uuid,
	"cloud_email" text,
	"outcome" text DEFAULT 'pending' NOT NULL,
	"before" text,
	"after" text,
	"reason" text,
	"seen" jsonb,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" text,
	"finished_at" timestamp with time zone,
	CONSTRAINT "fleet_plan_items_pk" PRIMARY KEY ("plan_id","seq")
);
--> statement-breakpoint
ALTER TABLE "fleet_plan_items" ADD CONSTRAINT "fleet_plan_items_plan_id_fleet_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."fleet_plans"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "fleet_plan_items_domain_uq" ON "fleet_plan_items" USING btree ("plan_id","domain_id");
--> statement-breakpoint
CREATE INDEX "fleet_plan_items_status_idx" ON "fleet_plan_items" USING btree ("plan_id","status","seq");
--> statement-breakpoint
CREATE INDEX "fleet_plan_items_outcome_idx" ON "fleet_plan_items" USING btree ("plan_id","outcome","seq");
