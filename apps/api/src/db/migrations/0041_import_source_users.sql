-- Issue 43. A DirectAdmin import with an admin login reads every user's sites; the plan keeps which panel users
-- it read, so the plan says whose sites it holds (null for sources without users).
ALTER TABLE "import_plans" ADD COLUMN IF NOT EXISTS "source_users" text[];
