-- Issue 15. list_versions: one row per listed table, its version moved at commit by any write to it (a
-- deferred trigger, so the new version becomes visible together with the rows that changed it). A list reads
-- the version in the same statement as its page or count, so a cached count is used only while it is exact.
-- Versions come from a sequence that no TRUNCATE restarts, so a version never repeats.
CREATE SEQUENCE "list_version_seq";
--> statement-breakpoint
CREATE TABLE "list_versions" (
	"tbl" text PRIMARY KEY NOT NULL,
	"v" bigint NOT NULL
);
--> statement-breakpoint
CREATE FUNCTION "list_versions_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Once per table and transaction: a bulk update of 10,000 rows moves the version once.
  IF TG_LEVEL = 'ROW' AND current_setting('fd_lv.' || TG_TABLE_NAME, true) = 'y' THEN
    RETURN NULL;
  END IF;
  IF TG_LEVEL = 'ROW' THEN
    PERFORM set_config('fd_lv.' || TG_TABLE_NAME, 'y', true);
  END IF;
  INSERT INTO "list_versions" ("tbl", "v") VALUES (TG_TABLE_NAME, nextval('list_version_seq'))
  ON CONFLICT ("tbl") DO UPDATE SET "v" = excluded."v";
  RETURN NULL;
END $$;
--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['domains', 'brands', 'regions', 'servers', 'clouds', 'proxies', 'users', 'roles',
    'firewall_rules', 'domain_registrators', 'domain_registrator_contacts', 'yandex_webmaster_accounts']
  LOOP
    EXECUTE format('CREATE CONSTRAINT TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I '
      'DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION list_versions_bump()', t || '_list_version', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump()',
      t || '_list_version_truncate', t);
  END LOOP;
END $$;
--> statement-breakpoint
-- Sessions served from memory: any change that can end a session tells every API process (LISTEN fd_auth).
-- NOTIFY is delivered at commit, and not at all on rollback.
CREATE FUNCTION "auth_changed_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('fd_auth', TG_TABLE_NAME);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A session changes when it is revoked, its limits are brought forward or it is deleted; the minutely touch of
-- last_used_at (forward) is not a change.
CREATE TRIGGER "sessions_auth_changed" AFTER UPDATE ON "sessions" FOR EACH ROW
  WHEN (OLD."revoked_at" IS DISTINCT FROM NEW."revoked_at" OR OLD."expires_at" IS DISTINCT FROM NEW."expires_at"
    OR OLD."user_id" IS DISTINCT FROM NEW."user_id" OR NEW."last_used_at" < OLD."last_used_at")
  EXECUTE FUNCTION "auth_changed_notify"();
--> statement-breakpoint
CREATE TRIGGER "sessions_auth_deleted" AFTER DELETE OR TRUNCATE ON "sessions"
  FOR EACH STATEMENT EXECUTE FUNCTION "auth_changed_notify"();
--> statement-breakpoint
CREATE TRIGGER "users_auth_changed" AFTER UPDATE OF "status", "password_hash", "username" OR DELETE OR TRUNCATE ON "users"
  FOR EACH STATEMENT EXECUTE FUNCTION "auth_changed_notify"();
--> statement-breakpoint
CREATE TRIGGER "user_roles_auth_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "user_roles"
  FOR EACH STATEMENT EXECUTE FUNCTION "auth_changed_notify"();
--> statement-breakpoint
CREATE TRIGGER "roles_auth_changed" AFTER UPDATE OF "rules" OR DELETE OR TRUNCATE ON "roles"
  FOR EACH STATEMENT EXECUTE FUNCTION "auth_changed_notify"();
