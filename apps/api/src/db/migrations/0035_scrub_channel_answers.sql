-- Issue 42, decision 058. Before it, a channel's test answer and the delivery log could hold a Telegram bot token
-- (undici's error repeated the whole URL, /bot<id>:<secret>/…) or a URL's user:pass@, and an audit diff of a channel
-- held its sealed secrets. What is already stored is scrubbed the same way new entries are written.
UPDATE "alert_delivery_log"
SET "answer" = regexp_replace(regexp_replace("answer", '/bot[0-9]+:[A-Za-z0-9_-]+', '/bot[redacted]', 'g'), '//[^/@[:space:]]+@', '//', 'g')
WHERE "answer" ~ '(/bot[0-9]+:|//[^/@[:space:]]+@)';
--> statement-breakpoint
UPDATE "alert_deliveries"
SET "answer" = regexp_replace(regexp_replace("answer", '/bot[0-9]+:[A-Za-z0-9_-]+', '/bot[redacted]', 'g'), '//[^/@[:space:]]+@', '//', 'g')
WHERE "answer" ~ '(/bot[0-9]+:|//[^/@[:space:]]+@)';
--> statement-breakpoint
UPDATE "notification_channels"
SET "last_test_answer" = regexp_replace(regexp_replace("last_test_answer", '/bot[0-9]+:[A-Za-z0-9_-]+', '/bot[redacted]', 'g'), '//[^/@[:space:]]+@', '//', 'g')
WHERE "last_test_answer" ~ '(/bot[0-9]+:|//[^/@[:space:]]+@)';
--> statement-breakpoint
UPDATE "audit_log"
SET "details" = jsonb_set("details", '{answer}', to_jsonb(regexp_replace(regexp_replace("details"->>'answer', '/bot[0-9]+:[A-Za-z0-9_-]+', '/bot[redacted]', 'g'), '//[^/@[:space:]]+@', '//', 'g')))
WHERE "entity" = 'notification-channels' AND jsonb_typeof("details"->'answer') = 'string'
  AND "details"->>'answer' ~ '(/bot[0-9]+:|//[^/@[:space:]]+@)';
--> statement-breakpoint
UPDATE "audit_log"
SET "diff" = (
  SELECT jsonb_object_agg(e.key, CASE WHEN e.key LIKE '%Enc' THEN jsonb_build_object(
    'before', CASE WHEN e.value->'before' = 'null'::jsonb THEN 'null'::jsonb ELSE '"[redacted]"'::jsonb END,
    'after', CASE WHEN e.value->'after' = 'null'::jsonb THEN 'null'::jsonb ELSE '"[redacted]"'::jsonb END
  ) ELSE e.value END)
  FROM jsonb_each("diff") AS e
)
WHERE "entity" = 'notification-channels' AND jsonb_typeof("diff") = 'object'
  AND EXISTS (SELECT 1 FROM jsonb_object_keys("diff") AS k WHERE k LIKE '%Enc');
--> statement-breakpoint
-- A webhook's answer keeps its status only (it held up to 200 characters of the receiver's page).
UPDATE "alert_delivery_log"
SET "answer" = substring("answer" from '^((?:Webhook: )?HTTP [0-9]{3})')
WHERE "channel_kind" = 'webhook' AND "answer" ~ '^(Webhook: )?HTTP [0-9]{3} ';
--> statement-breakpoint
UPDATE "notification_channels"
SET "last_test_answer" = substring("last_test_answer" from '^((?:Webhook: )?HTTP [0-9]{3})')
WHERE "kind" = 'webhook' AND "last_test_answer" ~ '^(Webhook: )?HTTP [0-9]{3} ';
