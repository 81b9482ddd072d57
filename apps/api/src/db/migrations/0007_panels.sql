ALTER TABLE "servers" ADD COLUMN "ispmanager_accept_self_signed" boolean DEFAULT false NOT NULL;
