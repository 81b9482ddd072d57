-- Issue 40. A launch changes an existing console domain's settings (server, registrator, …) only once the operator
-- has confirmed that change; the confirmation is kept apart from the registration's (which costs money).
ALTER TABLE "launches" ADD COLUMN "settings_confirmed" boolean DEFAULT false NOT NULL;
