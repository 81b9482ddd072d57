-- Issue 46. IndexNow, off unless a brand turns it on, and each domain's key: served by its site as /<key>.txt
-- (public by the protocol), and the time of its last submission (a sitemap job sends the pages changed since).
ALTER TABLE "brands" ADD COLUMN "index_now" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE TABLE "index_now_keys" (
	"domain_id" uuid PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_submitted_at" timestamp with time zone,
	CONSTRAINT "index_now_keys_key_ck" CHECK ("key" ~ '^[a-zA-Z0-9-]{8,128}$')
);--> statement-breakpoint
ALTER TABLE "index_now_keys" ADD CONSTRAINT "index_now_keys_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;
