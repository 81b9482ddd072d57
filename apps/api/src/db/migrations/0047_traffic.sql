-- Issue 47. Each domain's Cloudflare traffic per day (GraphQL Analytics), kept so the domain page and the dashboard
-- draw without asking Cloudflare, and when it was last read (the periodic job takes the longest-unread first).
CREATE TABLE "domain_traffic" (
	"domain_id" uuid PRIMARY KEY NOT NULL,
	"zone_id" text NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "domain_traffic_days" (
	"domain_id" uuid NOT NULL,
	"day" date NOT NULL,
	"requests" bigint NOT NULL,
	"page_views" bigint NOT NULL,
	"visits" bigint NOT NULL,
	"threats" bigint NOT NULL,
	"bytes" bigint NOT NULL,
	"status_2xx" bigint NOT NULL,
	"status_3xx" bigint NOT NULL,
	"status_4xx" bigint NOT NULL,
	"status_5xx" bigint NOT NULL,
	CONSTRAINT "domain_traffic_days_domain_id_day_pk" PRIMARY KEY("domain_id","day")
);
--> statement-breakpoint
ALTER TABLE "domain_traffic" ADD CONSTRAINT "domain_traffic_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "domain_traffic_days" ADD CONSTRAINT "domain_traffic_days_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "domain_traffic_read_at_idx" ON "domain_traffic" USING btree ("read_at");
--> statement-breakpoint
CREATE INDEX "domain_traffic_days_day_idx" ON "domain_traffic_days" USING btree ("day");
