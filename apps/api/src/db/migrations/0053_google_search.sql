-- Issue 46. Google Search Console: accounts (a service account's JSON key, sealed; its client_email, project and
-- token_uri kept in clear to show, and to know where the key is sent), and each domain's property on one of them.
CREATE TABLE "google_search_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"google_search_account_no" integer GENERATED ALWAYS AS IDENTITY NOT NULL,
	"name" text NOT NULL,
	"client_email" text NOT NULL,
	"project_id" text,
	"token_uri" text NOT NULL,
	"service_account_key_enc" text NOT NULL
);--> statement-breakpoint
CREATE INDEX "google_search_accounts_name_trgm_idx" ON "google_search_accounts" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE TABLE "google_search_properties" (
	"domain_id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"site_url" text NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "google_search_properties_site_url_ck" CHECK ("site_url" ~ '^(sc-domain:|https://)')
);--> statement-breakpoint
ALTER TABLE "google_search_properties" ADD CONSTRAINT "google_search_properties_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "google_search_properties" ADD CONSTRAINT "google_search_properties_account_id_google_search_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."google_search_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "google_search_properties_account_idx" ON "google_search_properties" USING btree ("account_id");--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "google_search_accounts_list_version" AFTER INSERT OR UPDATE OR DELETE ON "google_search_accounts"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION list_versions_bump();--> statement-breakpoint
CREATE TRIGGER "google_search_accounts_list_version_truncate" AFTER TRUNCATE ON "google_search_accounts"
  FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump();
