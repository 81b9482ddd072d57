-- Issue 27. DNS templates and launch profiles, the two resources a launch reads. A profile's references are
-- RESTRICT like the domains' (the services answer a 409 naming the profiles first); firewall_rule_ids is an array,
-- checked by the services.
CREATE TABLE "dns_templates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"dns_template_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "dns_templates_dns_template_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"records" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "dns_templates_name_lower_uq" ON "dns_templates" USING btree (lower("name"));
--> statement-breakpoint
CREATE INDEX "dns_templates_name_trgm_idx" ON "dns_templates" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE TABLE "launch_profiles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"launch_profile_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "launch_profiles_launch_profile_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"brand_id" uuid REFERENCES "brands"("id") ON DELETE RESTRICT,
	"server_id" uuid NOT NULL REFERENCES "servers"("id") ON DELETE RESTRICT,
	"cloud_id" uuid NOT NULL REFERENCES "clouds"("id") ON DELETE RESTRICT,
	"domain_registrator_id" uuid REFERENCES "domain_registrators"("id") ON DELETE RESTRICT,
	"register" boolean DEFAULT false NOT NULL,
	"domain_registrator_contact_id" uuid REFERENCES "domain_registrator_contacts"("id") ON DELETE RESTRICT,
	"content_kind" text DEFAULT 'none' NOT NULL,
	"content_domain_id" uuid REFERENCES "domains"("id") ON DELETE RESTRICT,
	"content_url" text,
	"content_region_id" uuid REFERENCES "regions"("id") ON DELETE RESTRICT,
	"dns_template_id" uuid REFERENCES "dns_templates"("id") ON DELETE RESTRICT,
	"firewall_rule_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"ssl_mode" text DEFAULT 'strict' NOT NULL,
	"tls13" boolean DEFAULT true NOT NULL,
	"yandex_webmaster_account_id" uuid REFERENCES "yandex_webmaster_accounts"("id") ON DELETE RESTRICT,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "launch_profiles_name_lower_uq" ON "launch_profiles" USING btree (lower("name"));
--> statement-breakpoint
CREATE INDEX "launch_profiles_name_trgm_idx" ON "launch_profiles" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "launch_profiles_brand_idx" ON "launch_profiles" USING btree ("brand_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_server_idx" ON "launch_profiles" USING btree ("server_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_cloud_idx" ON "launch_profiles" USING btree ("cloud_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_domain_registrator_idx" ON "launch_profiles" USING btree ("domain_registrator_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_contact_idx" ON "launch_profiles" USING btree ("domain_registrator_contact_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_content_domain_idx" ON "launch_profiles" USING btree ("content_domain_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_content_region_idx" ON "launch_profiles" USING btree ("content_region_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_dns_template_idx" ON "launch_profiles" USING btree ("dns_template_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_yandex_webmaster_account_idx" ON "launch_profiles" USING btree ("yandex_webmaster_account_id");
--> statement-breakpoint
CREATE INDEX "launch_profiles_firewall_rule_ids_idx" ON "launch_profiles" USING gin ("firewall_rule_ids");
--> statement-breakpoint
-- Both are kit lists: their versions move at the commit of any write (migration 0013).
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['dns_templates', 'launch_profiles']
  LOOP
    EXECUTE format('CREATE CONSTRAINT TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I '
      'DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION list_versions_bump()', t || '_list_version', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump()',
      t || '_list_version_truncate', t);
  END LOOP;
END $$;
