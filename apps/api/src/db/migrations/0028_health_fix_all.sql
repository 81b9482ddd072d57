-- Issue 28, Fix all and the dashboard at scale. Each domain's checks as "check:state" on the domain itself (the
-- list's per-check filter, GIN-indexed like the failing checks, written only when a state changes), and the
-- counts per check and state kept by triggers in the transaction that writes a result (the dashboard reads them
-- instead of grouping ~1.2M rows at 100k domains; cascaded deletes are counted too).
ALTER TABLE "domains" ADD COLUMN "health_checks" text[] DEFAULT '{}' NOT NULL;
--> statement-breakpoint
CREATE INDEX "domains_health_checks_idx" ON "domains" USING gin ("health_checks");
--> statement-breakpoint
UPDATE "domains" d SET "health_checks" = c.marks
  FROM (SELECT "domain_id", array_agg("check_key" || ':' || "state" ORDER BY "check_key") AS marks
        FROM "domain_health_checks" GROUP BY "domain_id") c
  WHERE c."domain_id" = d."id";
--> statement-breakpoint
CREATE TABLE "domain_health_counts" (
	"check_key" text NOT NULL,
	"state" text NOT NULL,
	"n" bigint NOT NULL,
	PRIMARY KEY ("check_key","state")
);
--> statement-breakpoint
CREATE FUNCTION "domain_health_counts_after_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "domain_health_counts" ("check_key", "state", "n")
    SELECT "check_key", "state", count(*) FROM new_rows GROUP BY "check_key", "state" ORDER BY "check_key", "state"
  ON CONFLICT ("check_key", "state") DO UPDATE SET "n" = "domain_health_counts"."n" + excluded."n";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "domain_health_counts_after_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only the states that moved: a run that changes nothing writes (and locks) nothing here.
  INSERT INTO "domain_health_counts" ("check_key", "state", "n")
    SELECT "check_key", "state", sum(d) FROM (
      SELECT "check_key", "state", -1 AS d FROM old_rows
      UNION ALL SELECT "check_key", "state", 1 AS d FROM new_rows
    ) x GROUP BY "check_key", "state" HAVING sum(d) <> 0 ORDER BY "check_key", "state"
  ON CONFLICT ("check_key", "state") DO UPDATE SET "n" = "domain_health_counts"."n" + excluded."n";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "domain_health_counts_after_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "domain_health_counts" ("check_key", "state", "n")
    SELECT "check_key", "state", -count(*) FROM old_rows GROUP BY "check_key", "state" ORDER BY "check_key", "state"
  ON CONFLICT ("check_key", "state") DO UPDATE SET "n" = "domain_health_counts"."n" + excluded."n";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "domain_health_counts_after_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "domain_health_counts";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "domain_health_counts_insert" AFTER INSERT ON "domain_health_checks" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_health_counts_after_insert"();
--> statement-breakpoint
CREATE TRIGGER "domain_health_counts_update" AFTER UPDATE ON "domain_health_checks"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_health_counts_after_update"();
--> statement-breakpoint
CREATE TRIGGER "domain_health_counts_delete" AFTER DELETE ON "domain_health_checks" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_health_counts_after_delete"();
--> statement-breakpoint
CREATE TRIGGER "domain_health_counts_truncate" AFTER TRUNCATE ON "domain_health_checks"
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_health_counts_after_truncate"();
--> statement-breakpoint
INSERT INTO "domain_health_counts" ("check_key", "state", "n")
  SELECT "check_key", "state", count(*) FROM "domain_health_checks" GROUP BY "check_key", "state";
