-- Issue 32. The domains list's counts per filter value, kept by triggers as rows change, so a filtered list
-- (brand, server, cloud, registrator, status, has a zone) knows its exact count without counting, even while
-- the fleet writes (a kept count is reused only while no domain changed). One row per (filter, value); a null
-- reference is the value 'none', the zone filter's values are 'true' and 'false'.
CREATE TABLE "domain_filter_counts" (
	"dim" text NOT NULL,
	"val" text NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "domain_filter_counts_pkey" PRIMARY KEY ("dim", "val")
);
--> statement-breakpoint
-- The six values of each row, as (dim, val) pairs.
CREATE FUNCTION "domain_filter_values"(brand uuid, server uuid, cloud uuid, registrator uuid, status text, zone text)
RETURNS TABLE ("dim" text, "val" text) LANGUAGE sql IMMUTABLE AS $$
  VALUES ('brand', coalesce(brand::text, 'none')), ('server', coalesce(server::text, 'none')),
    ('cloud', coalesce(cloud::text, 'none')), ('registrator', coalesce(registrator::text, 'none')),
    ('status', status), ('zone', (zone IS NOT NULL)::text)
$$;
--> statement-breakpoint
-- Statement-level, from the transition tables: a statement that changes no filter value (most updates: health,
-- names, parser settings) writes nothing here and locks no counter row. Rows are written in (dim, val) order,
-- so two transactions never lock the same counters in opposite orders.
CREATE FUNCTION "domain_filter_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "domain_filter_counts" ("dim", "val", "n")
    SELECT v."dim", v."val", count(*) FROM new_rows r,
      "domain_filter_values"(r."brand_id", r."server_id", r."cloud_id", r."domain_registrator_id", r."status", r."cloud_zone_id") v
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT ("dim", "val") DO UPDATE SET "n" = "domain_filter_counts"."n" + excluded."n";
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "domain_filter_counts" ("dim", "val", "n")
    SELECT v."dim", v."val", -count(*) FROM old_rows r,
      "domain_filter_values"(r."brand_id", r."server_id", r."cloud_id", r."domain_registrator_id", r."status", r."cloud_zone_id") v
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT ("dim", "val") DO UPDATE SET "n" = "domain_filter_counts"."n" + excluded."n";
  ELSE
    INSERT INTO "domain_filter_counts" ("dim", "val", "n")
    SELECT d."dim", d."val", sum(d."delta") FROM (
      SELECT v."dim", v."val", 1 AS "delta" FROM new_rows r,
        "domain_filter_values"(r."brand_id", r."server_id", r."cloud_id", r."domain_registrator_id", r."status", r."cloud_zone_id") v
      UNION ALL
      SELECT v."dim", v."val", -1 FROM old_rows r,
        "domain_filter_values"(r."brand_id", r."server_id", r."cloud_id", r."domain_registrator_id", r."status", r."cloud_zone_id") v
    ) d
    GROUP BY 1, 2 HAVING sum(d."delta") <> 0 ORDER BY 1, 2
    ON CONFLICT ("dim", "val") DO UPDATE SET "n" = "domain_filter_counts"."n" + excluded."n";
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "domain_filter_counts_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "domain_filter_counts";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "domains_filter_counts_insert" AFTER INSERT ON "domains" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_filter_counts_apply"();
--> statement-breakpoint
CREATE TRIGGER "domains_filter_counts_update" AFTER UPDATE ON "domains" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_filter_counts_apply"();
--> statement-breakpoint
CREATE TRIGGER "domains_filter_counts_delete" AFTER DELETE ON "domains" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_filter_counts_apply"();
--> statement-breakpoint
CREATE TRIGGER "domains_filter_counts_truncate" AFTER TRUNCATE ON "domains"
  FOR EACH STATEMENT EXECUTE FUNCTION "domain_filter_counts_truncate"();
--> statement-breakpoint
INSERT INTO "domain_filter_counts" ("dim", "val", "n")
SELECT v."dim", v."val", count(*) FROM "domains" r,
  "domain_filter_values"(r."brand_id", r."server_id", r."cloud_id", r."domain_registrator_id", r."status", r."cloud_zone_id") v
GROUP BY 1, 2;
