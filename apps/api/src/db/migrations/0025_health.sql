-- Issue 28. Fleet health: each domain's worst result on the domain itself (the list's Health column and filters
-- read only the domains table, so its kept pages and counts stay versioned by the domains version, decision 038;
-- it is written only when it changes), the checks' results with the history of their state changes, and when
-- each domain was last checked (apart, so the periodic job's runs never move the domains version).
ALTER TABLE "domains" ADD COLUMN "health_state" text;
--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "health_problems" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "health_failing" text[] DEFAULT '{}' NOT NULL;
--> statement-breakpoint
CREATE INDEX "domains_health_state_idx" ON "domains" USING btree ("health_state","domain_no");
--> statement-breakpoint
CREATE INDEX "domains_health_failing_idx" ON "domains" USING gin ("health_failing");
--> statement-breakpoint
CREATE TABLE "domain_health" (
	"domain_id" uuid PRIMARY KEY NOT NULL REFERENCES "domains"("id") ON DELETE CASCADE,
	"cheap_at" timestamp with time zone,
	"full_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "domain_health_cheap_at_idx" ON "domain_health" USING btree ("cheap_at");
--> statement-breakpoint
CREATE INDEX "domain_health_full_at_idx" ON "domain_health" USING btree ("full_at");
--> statement-breakpoint
CREATE TABLE "domain_health_checks" (
	"domain_id" uuid NOT NULL REFERENCES "domains"("id") ON DELETE CASCADE,
	"check_key" text NOT NULL,
	"state" text NOT NULL,
	"observed" text,
	"expected" text,
	"reason" text,
	"since" timestamp with time zone NOT NULL,
	"last_run" timestamp with time zone NOT NULL,
	PRIMARY KEY ("domain_id","check_key")
);
--> statement-breakpoint
CREATE INDEX "domain_health_checks_check_state_idx" ON "domain_health_checks" USING btree ("check_key","state");
--> statement-breakpoint
CREATE TABLE "domain_health_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY NOT NULL,
	"domain_id" uuid NOT NULL REFERENCES "domains"("id") ON DELETE CASCADE,
	"check_key" text NOT NULL,
	"from_state" text,
	"to_state" text NOT NULL,
	"observed" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "domain_health_events_domain_idx" ON "domain_health_events" USING btree ("domain_id","at");
--> statement-breakpoint
CREATE INDEX "domain_health_events_failing_idx" ON "domain_health_events" USING btree ("at") WHERE "to_state" = 'failing';
--> statement-breakpoint
CREATE TABLE "health_cycle" (
	"id" integer PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"full_cycle_hours" double precision,
	"cheap_cycle_hours" double precision,
	"message" text NOT NULL
);
