-- Issue 26. The app key's check value: a known text sealed with the key of the first process that found none, so
-- a process started with another APP_SECRET_KEY refuses to start instead of failing every provider call.
CREATE TABLE "app_key_check" (
  "id" integer PRIMARY KEY DEFAULT 1 CHECK ("id" = 1),
  "sealed" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- A proxy is marked failed only on evidence that holds: consecutive failed checks, or failures seen by more than
-- one process. These count the current run of failures and name the processes that saw them.
ALTER TABLE "proxies" ADD COLUMN "check_failures" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "proxies" ADD COLUMN "check_failed_by" text[] DEFAULT '{}'::text[] NOT NULL;
