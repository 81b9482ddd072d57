-- Issue 44, decision 078. Before a content change (a save, a removal, an upload, a copy onto a domain, a restore),
-- the files it will change: their bytes before (here for small changes, else in a directory on the server next to
-- the domain directories) and a hash of what the change wrote, so a restore can tell a file changed since.
CREATE TABLE "content_snapshots" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "domain_id" uuid REFERENCES "domains"("id") ON DELETE SET NULL,
  "domain_name" text NOT NULL,
  "server_id" uuid REFERENCES "servers"("id") ON DELETE SET NULL,
  "dir" text NOT NULL,
  "action" text NOT NULL,
  "storage" text NOT NULL CHECK ("storage" IN ('db', 'server')),
  "remote_dir" text,
  "file_count" integer DEFAULT 0 NOT NULL,
  "bytes" bigint DEFAULT 0 NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "pruned_at" timestamp with time zone,
  "pruned_reason" text
);
--> statement-breakpoint
CREATE INDEX "content_snapshots_server_idx" ON "content_snapshots" ("server_id", "created_at") WHERE "pruned_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "content_snapshots_expires_idx" ON "content_snapshots" ("expires_at") WHERE "pruned_at" IS NULL;
--> statement-breakpoint
CREATE TABLE "content_snapshot_files" (
  "snapshot_id" uuid NOT NULL REFERENCES "content_snapshots"("id") ON DELETE CASCADE,
  "seq" integer NOT NULL,
  "path" text NOT NULL,
  "type" text NOT NULL CHECK ("type" IN ('file', 'directory')),
  "before_exists" boolean NOT NULL,
  "before_size" bigint,
  "before_sha" text,
  "after_exists" boolean NOT NULL,
  "after_size" bigint,
  "after_sha" text,
  "after_mtime" integer,
  "content" bytea,
  CONSTRAINT "content_snapshot_files_pk" PRIMARY KEY ("snapshot_id", "seq")
);
