-- Issue 30. An administrator's one-time link invitation: the next single sign-on through it binds the provider's
-- (issuer, subject) to this user (one pending invitation per user, stored hashed). A sign-in under way remembers
-- the invitation it came through and whether the provider asserted MFA; a two-factor challenge remembers the
-- first factor it follows (a password or single sign-on).
CREATE TABLE "identity_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"token_hash" text NOT NULL,
	"created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "identity_links_token_hash_uq" ON "identity_links" USING btree ("token_hash");
--> statement-breakpoint
CREATE UNIQUE INDEX "identity_links_user_uq" ON "identity_links" USING btree ("user_id");
--> statement-breakpoint
ALTER TABLE "oidc_logins" ADD COLUMN "link_id" uuid REFERENCES "identity_links"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "oidc_logins" ADD COLUMN "provider_mfa" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "login_challenges" ADD COLUMN "first_factor" text DEFAULT 'password' NOT NULL;
