CREATE TABLE "clouds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"cloud_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "clouds_cloud_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"email" text NOT NULL,
	"password_enc" text,
	"token_enc" text,
	"global_api_key_enc" text,
	"email_password_enc" text,
	"proxy_region_id" uuid,
	"account_id" text
);
--> statement-breakpoint
CREATE TABLE "proxies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"proxy_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "proxies_proxy_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"is_https" boolean DEFAULT false NOT NULL,
	"ip_address" text,
	"http_port" integer,
	"username" text,
	"password_enc" text,
	"region_id" uuid,
	"proxy_type" text,
	"check_status" text,
	"check_latency_ms" integer,
	"check_error" text,
	"checked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "servers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"server_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "servers_server_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"ip_address" text NOT NULL,
	"email" text,
	"domains_limit_qty" integer DEFAULT 0 NOT NULL,
	"username" text DEFAULT 'root' NOT NULL,
	"ssh_port" integer DEFAULT 22 NOT NULL,
	"domains_path" text,
	"ispmanager_uri" text,
	"ispmanager_username" text,
	"ispmanager_password_enc" text,
	"direct_admin_uri" text,
	"direct_admin_username" text,
	"direct_admin_password_enc" text,
	"rsa_key_enc" text,
	"rsa_key_type" text,
	"rsa_key_fingerprint" text,
	"rsa_public_key" text,
	"host_key_fingerprint" text,
	"status" text DEFAULT 'unknown' NOT NULL,
	"free_space_bytes" bigint,
	"total_space_bytes" bigint,
	"checked_at" timestamp with time zone,
	"check_error" text
);
--> statement-breakpoint
ALTER TABLE "clouds" ADD CONSTRAINT "clouds_proxy_region_id_regions_id_fk" FOREIGN KEY ("proxy_region_id") REFERENCES "public"."regions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proxies" ADD CONSTRAINT "proxies_region_id_regions_id_fk" FOREIGN KEY ("region_id") REFERENCES "public"."regions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "clouds_email_lower_uq" ON "clouds" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "clouds_email_trgm_idx" ON "clouds" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "clouds_proxy_region_idx" ON "clouds" USING btree ("proxy_region_id");--> statement-breakpoint
CREATE INDEX "proxies_region_idx" ON "proxies" USING btree ("region_id");--> statement-breakpoint
CREATE INDEX "proxies_ip_trgm_idx" ON "proxies" USING gin ("ip_address" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "servers_ip_trgm_idx" ON "servers" USING gin ("ip_address" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "servers_email_trgm_idx" ON "servers" USING gin ("email" gin_trgm_ops);