-- Issue 29. Alerts: notification channels (secrets sealed like every credential), alert rules, the problems
-- (one open alert per problem key), the outbox of messages per alert, rule and channel, the deliveries (one per
-- message sent, its id the idempotency key, composed once so a retry sends the same thing) and the delivery log.
CREATE TABLE "notification_channels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"channel_no" integer GENERATED ALWAYS AS IDENTITY NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"smtp_host" text,
	"smtp_port" integer,
	"smtp_security" text,
	"smtp_user" text,
	"smtp_password_enc" text,
	"email_from" text,
	"email_to" text,
	"webhook_url" text,
	"webhook_secret_enc" text,
	"telegram_bot_token_enc" text,
	"telegram_chat_id" text,
	"telegram_api_base" text,
	"last_test_at" timestamp with time zone,
	"last_test_ok" boolean,
	"last_test_answer" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "notification_channels_name_uq" ON "notification_channels" USING btree (lower("name"));
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"rule_no" integer GENERATED ALWAYS AS IDENTITY NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"events" text[] DEFAULT '{}' NOT NULL,
	"expiry_days" integer DEFAULT 30 NOT NULL,
	"health_minutes" integer DEFAULT 15 NOT NULL,
	"scope" text DEFAULT 'all' NOT NULL,
	"brand_id" uuid REFERENCES "brands"("id") ON DELETE RESTRICT,
	"filter" jsonb,
	"channel_ids" uuid[] DEFAULT '{}' NOT NULL,
	"min_severity" text DEFAULT 'warning' NOT NULL,
	"reminder_minutes" integer,
	"quiet_start" text,
	"quiet_end" text,
	"time_zone" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "alert_rules_name_uq" ON "alert_rules" USING btree (lower("name"));
--> statement-breakpoint
CREATE INDEX "alert_rules_channel_ids_idx" ON "alert_rules" USING gin ("channel_ids");
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"alert_no" integer GENERATED ALWAYS AS IDENTITY NOT NULL,
	"key" text NOT NULL,
	"event" text NOT NULL,
	"severity" text NOT NULL,
	"state" text NOT NULL,
	"title" text NOT NULL,
	"detail" text,
	"subject_kind" text NOT NULL,
	"subject_id" text,
	"subject_name" text,
	"domain_id" uuid REFERENCES "domains"("id") ON DELETE SET NULL,
	"since" timestamp with time zone NOT NULL,
	"days_left" integer,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_open_key_uq" ON "alerts" USING btree ("key") WHERE "state" = 'open';
--> statement-breakpoint
CREATE INDEX "alerts_state_idx" ON "alerts" USING btree ("state","opened_at");
--> statement-breakpoint
CREATE INDEX "alerts_opened_idx" ON "alerts" USING btree ("opened_at");
--> statement-breakpoint
CREATE TABLE "alert_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"rule_id" uuid REFERENCES "alert_rules"("id") ON DELETE SET NULL,
	"channel_id" uuid NOT NULL REFERENCES "notification_channels"("id") ON DELETE CASCADE,
	"status" text DEFAULT 'queued' NOT NULL,
	"event" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text NOT NULL,
	"payload" jsonb NOT NULL,
	"job_id" uuid,
	"attempts" integer DEFAULT 0 NOT NULL,
	"answer" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "alert_deliveries_status_idx" ON "alert_deliveries" USING btree ("status","created_at");
--> statement-breakpoint
CREATE TABLE "alert_notifications" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY NOT NULL,
	"alert_id" uuid NOT NULL REFERENCES "alerts"("id") ON DELETE CASCADE,
	"rule_id" uuid NOT NULL REFERENCES "alert_rules"("id") ON DELETE CASCADE,
	"channel_id" uuid NOT NULL REFERENCES "notification_channels"("id") ON DELETE CASCADE,
	"kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"delivery_id" uuid REFERENCES "alert_deliveries"("id") ON DELETE SET NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "alert_notifications_once_uq" ON "alert_notifications" USING btree ("alert_id","rule_id","channel_id","kind") WHERE "kind" IN ('open', 'resolved');
--> statement-breakpoint
CREATE INDEX "alert_notifications_due_idx" ON "alert_notifications" USING btree ("status","due_at");
--> statement-breakpoint
CREATE INDEX "alert_notifications_alert_idx" ON "alert_notifications" USING btree ("alert_id");
--> statement-breakpoint
CREATE TABLE "alert_delivery_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivery_id" uuid REFERENCES "alert_deliveries"("id") ON DELETE SET NULL,
	"channel_id" uuid REFERENCES "notification_channels"("id") ON DELETE SET NULL,
	"channel_name" text NOT NULL,
	"channel_kind" text NOT NULL,
	"event" text NOT NULL,
	"outcome" text NOT NULL,
	"answer" text
);
--> statement-breakpoint
CREATE INDEX "alert_delivery_log_at_idx" ON "alert_delivery_log" USING btree ("at");
--> statement-breakpoint
CREATE TABLE "alert_cursor" (
	"id" integer PRIMARY KEY NOT NULL,
	"jobs_after" timestamp with time zone NOT NULL
);
