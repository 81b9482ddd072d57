-- A launch profile may name a Google Search Console account (issue 46, decision 081): the launch adds and verifies
-- the domain's property with it and submits the sitemap. RESTRICT like the profile's other references.
ALTER TABLE "launch_profiles" ADD COLUMN "google_search_account_id" uuid REFERENCES "google_search_accounts"("id") ON DELETE RESTRICT;--> statement-breakpoint
CREATE INDEX "launch_profiles_google_search_account_idx" ON "launch_profiles" USING btree ("google_search_account_id");
