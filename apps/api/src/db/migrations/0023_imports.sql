CREATE TABLE "import_plans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"plan_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "import_plans_plan_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"source" text NOT NULL,
	"source_id" uuid NOT NULL,
	"source_label" text NOT NULL,
	"state" text DEFAULT 'planning' NOT NULL,
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
CREATE UNIQUE INDEX "import_plans_plan_no_uq" ON "import_plans" USING btree ("plan_no");
--> statement-breakpoint
CREATE TABLE "import_items" (
	"plan_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"name" text NOT NULL,
	"name_unicode" text NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"domain_id" uuid,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" text,
	"finished_at" timestamp with time zone,
	CONSTRAINT "import_items_pk" PRIMARY KEY ("plan_id","seq")
);
--> statement-breakpoint
ALTER TABLE "import_items" ADD CONSTRAINT "import_items_plan_id_import_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."import_plans"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "import_items_status_idx" ON "import_items" USING btree ("plan_id","status","seq");
--> statement-breakpoint
CREATE TABLE "zone_file_exports" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"file_name" text NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
