-- Issue 15. Rate-limit counters are short-lived and worth nothing after a crash: an unlogged table writes no WAL,
-- so a counted request never waits for a WAL flush at commit.
ALTER TABLE "rate_limit_hits" SET UNLOGGED;
