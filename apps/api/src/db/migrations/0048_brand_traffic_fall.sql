-- Issue 47. A brand's limit for the "Traffic fell" health check: a fall of requests of more than this percent
-- against the week before fails the check; null (the default) is off.
ALTER TABLE "brands" ADD COLUMN "traffic_fall_percent" integer;--> statement-breakpoint
ALTER TABLE "brands" ADD CONSTRAINT "brands_traffic_fall_percent_ck" CHECK ("traffic_fall_percent" BETWEEN 1 AND 100);
