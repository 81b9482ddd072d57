-- Issue 30: two-factor sign-in, personal API tokens, sessions that show where they came from.
ALTER TABLE "roles" ADD COLUMN "require_two_factor" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "roles" ADD COLUMN "tokens_without_expiry" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- A session opened by a user whose role requires two-factor but who has none yet: it may only set it up.
ALTER TABLE "sessions" ADD COLUMN "two_factor_setup" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- The TOTP secret is sealed with the secret box; enabled_at is null while the setup waits for its first code.
-- last_step is the last time step accepted, so a code is never accepted twice.
CREATE TABLE "user_two_factor" (
	"user_id" uuid PRIMARY KEY NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"secret" text NOT NULL,
	"enabled_at" timestamp with time zone,
	"last_step" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_recovery_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "user_recovery_codes_user_idx" ON "user_recovery_codes" USING btree ("user_id");
--> statement-breakpoint
-- The step between the password and the code: a short-lived challenge, its own attempts counted.
CREATE TABLE "login_challenges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"ip" text,
	"user_agent" text,
	"failures" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "login_challenges_token_hash_uq" ON "login_challenges" USING btree ("token_hash");
--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_no" integer GENERATED ALWAYS AS IDENTITY NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"rules" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"last_used_ip" text,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_token_hash_uq" ON "api_tokens" USING btree ("token_hash");
--> statement-breakpoint
CREATE INDEX "api_tokens_user_idx" ON "api_tokens" USING btree ("user_id");
--> statement-breakpoint
-- A token's owner is named in the audit trail; the token's name beside it.
ALTER TABLE "audit_log" ADD COLUMN "token_name" text;
--> statement-breakpoint
-- Sessions served from memory carry the two-factor setup flag and the roles' requirement: a change tells every process.
CREATE TRIGGER "sessions_setup_changed" AFTER UPDATE OF "two_factor_setup" ON "sessions"
  FOR EACH STATEMENT EXECUTE FUNCTION "auth_changed_notify"();
--> statement-breakpoint
-- Single sign-on (OIDC): a user is linked to a provider's account by (issuer, subject), never by email alone.
CREATE TABLE "user_identities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_login_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "user_identities_issuer_subject_uq" ON "user_identities" USING btree ("issuer","subject");
--> statement-breakpoint
CREATE INDEX "user_identities_user_idx" ON "user_identities" USING btree ("user_id");
--> statement-breakpoint
-- A sign-in under way at the provider (state, sealed PKCE verifier, nonce), shared by every process; after the
-- callback the same row holds the hash of the one-time code the web app exchanges for a session.
CREATE TABLE "oidc_logins" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"state_hash" text NOT NULL,
	"code_verifier" text NOT NULL,
	"nonce" text NOT NULL,
	"exchange_hash" text,
	"user_id" uuid REFERENCES "users"("id") ON DELETE CASCADE,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_logins_state_hash_uq" ON "oidc_logins" USING btree ("state_hash");
--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_logins_exchange_hash_uq" ON "oidc_logins" USING btree ("exchange_hash");
