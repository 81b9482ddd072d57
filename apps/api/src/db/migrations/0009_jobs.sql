CREATE TABLE "jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "jobs_job_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"area" text NOT NULL,
	"domain_id" uuid,
	"domain_name" text,
	"payload" jsonb NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"progress" jsonb,
	"steps" jsonb,
	"result" jsonb,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"boss_id" uuid,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"worker" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_job_no_uq" ON "jobs" USING btree ("job_no");
--> statement-breakpoint
CREATE INDEX "jobs_domain_idx" ON "jobs" USING btree ("domain_id","job_no");
--> statement-breakpoint
CREATE INDEX "jobs_state_idx" ON "jobs" USING btree ("state","job_no");
--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_one_active_per_domain_uq" ON "jobs" USING btree ("kind","domain_id") WHERE "jobs"."state" in ('queued', 'running') and "jobs"."domain_id" is not null;
