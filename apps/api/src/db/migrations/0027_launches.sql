CREATE TABLE "launches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"launch_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "launches_launch_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"domain_name" text NOT NULL,
	"domain_name_unicode" text NOT NULL,
	"domain_id" uuid,
	"input" jsonb NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"confirmed" boolean DEFAULT false NOT NULL,
	"stages" jsonb NOT NULL,
	"job_id" uuid,
	"error" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "launches_launch_no_uq" ON "launches" USING btree ("launch_no");
--> statement-breakpoint
CREATE INDEX "launches_domain_name_idx" ON "launches" USING btree ("domain_name");
--> statement-breakpoint
CREATE INDEX "launches_state_idx" ON "launches" USING btree ("state","launch_no");
--> statement-breakpoint
CREATE TABLE "launch_batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "launch_batches_batch_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"settings" jsonb NOT NULL,
	"confirm_costly" boolean DEFAULT false NOT NULL,
	"state" text DEFAULT 'planning' NOT NULL,
	"error" text,
	"job_id" uuid,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "launch_batches_batch_no_uq" ON "launch_batches" USING btree ("batch_no");
--> statement-breakpoint
CREATE TABLE "launch_batch_rows" (
	"batch_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"domain_name" text NOT NULL,
	"domain_name_unicode" text NOT NULL,
	"overrides" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"message" text,
	"launch_id" uuid,
	CONSTRAINT "launch_batch_rows_pk" PRIMARY KEY ("batch_id","seq")
);
--> statement-breakpoint
ALTER TABLE "launch_batch_rows" ADD CONSTRAINT "launch_batch_rows_batch_id_launch_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."launch_batches"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "launch_batch_rows_status_idx" ON "launch_batch_rows" USING btree ("batch_id","status","seq");
