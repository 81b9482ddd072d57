-- Issue 15. A domains page shows each domain's firewall rules: their links move a version too, so a page kept in
-- memory is reused only while every table it reads is unchanged (decision 038).
CREATE CONSTRAINT TRIGGER "domain_firewall_rules_list_version" AFTER INSERT OR UPDATE OR DELETE ON "domain_firewall_rules"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION list_versions_bump();
--> statement-breakpoint
CREATE TRIGGER "domain_firewall_rules_list_version_truncate" AFTER TRUNCATE ON "domain_firewall_rules"
  FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump();
