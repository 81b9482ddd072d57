CREATE TABLE "domain_firewall_rules" (
	"domain_id" uuid NOT NULL,
	"rule_id" uuid NOT NULL,
	"priority" integer NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "domain_firewall_rules_domain_id_rule_id_pk" PRIMARY KEY("domain_id","rule_id")
);
--> statement-breakpoint
CREATE TABLE "domains" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"domain_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "domains_domain_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"domain_name" text NOT NULL,
	"domain_name_unicode" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"server_id" uuid,
	"brand_id" uuid,
	"cloud_id" uuid,
	"cloud_zone_id" text,
	"cloud_ruleset_id" text,
	"parser_enabled" boolean DEFAULT false NOT NULL,
	"is_single_page" boolean DEFAULT false NOT NULL,
	"parser_url" text,
	"parser_proxy_region_id" uuid,
	"redirect_domain_name" text,
	"is_restricted" boolean DEFAULT false NOT NULL,
	"domain_registrator_id" uuid,
	"domain_registrator_expiration_date" date,
	"yandex_webmaster_account_id" uuid,
	"parsing_start_date" timestamp with time zone,
	"parsing_end_date" timestamp with time zone,
	"parsing_progress" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "domain_firewall_rules" ADD CONSTRAINT "domain_firewall_rules_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domain_firewall_rules" ADD CONSTRAINT "domain_firewall_rules_rule_id_firewall_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."firewall_rules"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_cloud_id_clouds_id_fk" FOREIGN KEY ("cloud_id") REFERENCES "public"."clouds"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_parser_proxy_region_id_regions_id_fk" FOREIGN KEY ("parser_proxy_region_id") REFERENCES "public"."regions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_domain_registrator_id_domain_registrators_id_fk" FOREIGN KEY ("domain_registrator_id") REFERENCES "public"."domain_registrators"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "domain_firewall_rules_rule_idx" ON "domain_firewall_rules" USING btree ("rule_id");--> statement-breakpoint
CREATE UNIQUE INDEX "domains_domain_name_uq" ON "domains" USING btree ("domain_name");--> statement-breakpoint
CREATE UNIQUE INDEX "domains_domain_no_uq" ON "domains" USING btree ("domain_no");--> statement-breakpoint
CREATE INDEX "domains_domain_name_trgm_idx" ON "domains" USING gin ("domain_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "domains_domain_name_unicode_trgm_idx" ON "domains" USING gin ("domain_name_unicode" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "domains_redirect_domain_name_trgm_idx" ON "domains" USING gin ("redirect_domain_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "domains_server_idx" ON "domains" USING btree ("server_id");--> statement-breakpoint
CREATE INDEX "domains_brand_idx" ON "domains" USING btree ("brand_id");--> statement-breakpoint
CREATE INDEX "domains_cloud_idx" ON "domains" USING btree ("cloud_id");--> statement-breakpoint
CREATE INDEX "domains_parser_proxy_region_idx" ON "domains" USING btree ("parser_proxy_region_id");--> statement-breakpoint
CREATE INDEX "domains_domain_registrator_idx" ON "domains" USING btree ("domain_registrator_id");--> statement-breakpoint
CREATE INDEX "domains_yandex_webmaster_account_idx" ON "domains" USING btree ("yandex_webmaster_account_id");