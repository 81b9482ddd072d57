-- Issue 47. Cloudflare requests sent per account key and minute, by every process (flushed every few seconds), kept
-- a week: a fleet run's page draws each account's requests per minute against its budget.
CREATE TABLE "cloudflare_requests_per_minute" (
	"key" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "cloudflare_requests_per_minute_pk" PRIMARY KEY("key","minute")
);
