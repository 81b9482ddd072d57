-- The dashboard's "expiring within 30 days" list walks this index from today, in date order, with a LIMIT.
CREATE INDEX IF NOT EXISTS "domains_expiration_date_idx" ON "domains" ("domain_registrator_expiration_date") WHERE "domain_registrator_expiration_date" IS NOT NULL;
