CREATE TABLE "domain_counts" (
	"id" integer PRIMARY KEY NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE FUNCTION "domain_counts_add"(delta bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "domain_counts" ("id", "n") SELECT 1, delta WHERE delta <> 0
  ON CONFLICT ("id") DO UPDATE SET "n" = "domain_counts"."n" + excluded."n";
$$;
--> statement-breakpoint
CREATE FUNCTION "domain_counts_after_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "domain_counts_add"((SELECT count(*) FROM new_rows));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "domain_counts_after_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "domain_counts_add"(-(SELECT count(*) FROM old_rows));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "domain_counts_after_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "domain_counts" ("id", "n") VALUES (1, 0) ON CONFLICT ("id") DO UPDATE SET "n" = 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "domains_count_insert" AFTER INSERT ON "domains" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_counts_after_insert"();
--> statement-breakpoint
CREATE TRIGGER "domains_count_delete" AFTER DELETE ON "domains" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_counts_after_delete"();
--> statement-breakpoint
CREATE TRIGGER "domains_count_truncate" AFTER TRUNCATE ON "domains"
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_counts_after_truncate"();
--> statement-breakpoint
INSERT INTO "domain_counts" ("id", "n") SELECT 1, count(*) FROM "domains";
