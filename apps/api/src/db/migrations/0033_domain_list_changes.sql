-- Issue 32 (decision 053). Kept domains pages ended by the rows a write touches, not by any write to the table.
-- Every statement that changes domains writes what each changed row looked like before and after (the values
-- a list filters on and the number that places it), and its transaction's commit stamps those rows with the
-- domains version it commits. That version is now one more than the last committed one, taken under the
-- version row's lock: versions follow commit order, so a reader that sees version V sees every change up to V.
CREATE TABLE "domain_list_changes" (
	"xid" bigint NOT NULL,
	"v" bigint,
	-- null: any domain may have changed (a truncate, or a statement that changed too many rows to list)
	"domain_no" integer,
	"o" jsonb,
	"n" jsonb
);
--> statement-breakpoint
CREATE INDEX "domain_list_changes_v_idx" ON "domain_list_changes" ("v");
--> statement-breakpoint
CREATE INDEX "domain_list_changes_unstamped_idx" ON "domain_list_changes" ("xid") WHERE "v" IS NULL;
--> statement-breakpoint
-- What a kept page's filters read of a row (domains.repository.ts, domainMatches).
CREATE FUNCTION "domain_list_values"(r "domains") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('brandId', r."brand_id", 'serverId', r."server_id", 'cloudId', r."cloud_id",
    'domainRegistratorId', r."domain_registrator_id", 'status', r."status", 'zone', r."cloud_zone_id" IS NOT NULL,
    'expires', r."domain_registrator_expiration_date", 'health', r."health_state", 'failing', r."health_failing",
    'checks', r."health_checks", 'name', r."domain_name", 'redirect', r."redirect_domain_name",
    'nameUnicode', r."domain_name_unicode")
$$;
--> statement-breakpoint
CREATE FUNCTION "domain_list_changes_record"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN SELECT count(*) INTO k FROM new_rows; ELSE SELECT count(*) INTO k FROM old_rows; END IF;
  IF k = 0 THEN RETURN NULL; END IF;
  -- A bulk statement is one "anything may have changed": listing 10,000 rows would cost more than it saves.
  IF k > 200 THEN
    INSERT INTO "domain_list_changes" ("xid", "domain_no") VALUES (txid_current(), NULL);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO "domain_list_changes" ("xid", "domain_no", "o", "n")
    SELECT txid_current(), r."domain_no", NULL, "domain_list_values"(r) FROM new_rows r;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "domain_list_changes" ("xid", "domain_no", "o", "n")
    SELECT txid_current(), r."domain_no", "domain_list_values"(r), NULL FROM old_rows r;
  ELSE
    INSERT INTO "domain_list_changes" ("xid", "domain_no", "o", "n")
    SELECT txid_current(), nr."domain_no", "domain_list_values"(o), "domain_list_values"(nr)
    FROM old_rows o JOIN new_rows nr ON nr."id" = o."id";
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "domains_list_changes_insert" AFTER INSERT ON "domains" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_list_changes_record"();
--> statement-breakpoint
CREATE TRIGGER "domains_list_changes_update" AFTER UPDATE ON "domains" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_list_changes_record"();
--> statement-breakpoint
CREATE TRIGGER "domains_list_changes_delete" AFTER DELETE ON "domains" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_list_changes_record"();
--> statement-breakpoint
-- The domains version, moved at commit (deferred) as before, now in commit order, and the transaction's changes
-- stamped with it. A truncate is one "anything". About one commit in a thousand prunes changes 50,000 versions
-- old, which no process can still need (kept pages live 30 s; a process whose last read is 40,000 versions behind
-- drops every page, kept-pages.ts).
CREATE FUNCTION "domains_list_version_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE nv bigint;
BEGIN
  IF TG_LEVEL = 'ROW' AND current_setting('fd_lv.domains', true) = 'y' THEN
    RETURN NULL;
  END IF;
  IF TG_LEVEL = 'ROW' THEN
    PERFORM set_config('fd_lv.domains', 'y', true);
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO "domain_list_changes" ("xid", "domain_no") VALUES (txid_current(), NULL);
  END IF;
  -- Under the row's lock the update reads the last committed version: one more than it, or a fresh value of
  -- the sequence if larger (never a version used before, even after list_versions was emptied).
  INSERT INTO "list_versions" ("tbl", "v") VALUES ('domains', nextval('list_version_seq'))
  ON CONFLICT ("tbl") DO UPDATE SET "v" = greatest("list_versions"."v" + 1, excluded."v")
  RETURNING "v" INTO nv;
  -- Keep the sequence ahead of every version stored (one or two steps at most).
  WHILE nextval('list_version_seq') < nv LOOP END LOOP;
  UPDATE "domain_list_changes" SET "v" = nv WHERE "xid" = txid_current() AND "v" IS NULL;
  -- Versions do not move by one (the sequence is shared), so "one in a thousand" is drawn, not counted.
  IF random() < 0.001 THEN
    DELETE FROM "domain_list_changes" WHERE "v" < nv - 50000;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER "domains_list_version" ON "domains";
--> statement-breakpoint
DROP TRIGGER "domains_list_version_truncate" ON "domains";
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "domains_list_version" AFTER INSERT OR UPDATE OR DELETE ON "domains"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "domains_list_version_bump"();
--> statement-breakpoint
CREATE TRIGGER "domains_list_version_truncate" AFTER TRUNCATE ON "domains"
  FOR EACH STATEMENT EXECUTE FUNCTION "domains_list_version_bump"();
