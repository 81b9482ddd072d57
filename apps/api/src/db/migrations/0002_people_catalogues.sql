CREATE TABLE "domain_registrator_contacts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"domain_registrator_contact_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "domain_registrator_contacts_domain_registrator_contact_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"first_name" text,
	"last_name" text,
	"address1" text,
	"city" text,
	"state" text,
	"postal_code" text,
	"country" text,
	"phone" text,
	"email" text
);
--> statement-breakpoint
CREATE TABLE "domain_registrators" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"domain_registrator_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "domain_registrators_domain_registrator_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"type" text NOT NULL,
	"endpoint_url" text NOT NULL,
	"api_username" text NOT NULL,
	"api_key" text
);
--> statement-breakpoint
CREATE TABLE "firewall_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"firewall_rule_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "firewall_rules_firewall_rule_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"action" text NOT NULL,
	"expression" text DEFAULT '' NOT NULL,
	"default_priority" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "domain_registrator_contacts_name_trgm_idx" ON "domain_registrator_contacts" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "domain_registrator_contacts_email_trgm_idx" ON "domain_registrator_contacts" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "domain_registrators_name_lower_uq" ON "domain_registrators" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "domain_registrators_name_trgm_idx" ON "domain_registrators" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "firewall_rules_name_lower_uq" ON "firewall_rules" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "firewall_rules_name_trgm_idx" ON "firewall_rules" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "roles_name_trgm_idx" ON "roles" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_username_trgm_idx" ON "users" USING gin ("username" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_name_trgm_idx" ON "users" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_email_trgm_idx" ON "users" USING gin ("email" gin_trgm_ops);