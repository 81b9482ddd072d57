CREATE TABLE "yandex_webmaster_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"yandex_webmaster_account_no" integer GENERATED ALWAYS AS IDENTITY (sequence name "yandex_webmaster_accounts_yandex_webmaster_account_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"api_token_enc" text,
	"user_id" text
);
--> statement-breakpoint
CREATE INDEX "yandex_webmaster_accounts_name_trgm_idx" ON "yandex_webmaster_accounts" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE TABLE "yandex_webmaster_recrawl_backlog" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"host_id" text NOT NULL,
	"url" text NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "yandex_webmaster_recrawl_backlog" ADD CONSTRAINT "yandex_webmaster_recrawl_backlog_account_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."yandex_webmaster_accounts"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "yandex_webmaster_recrawl_backlog_uq" ON "yandex_webmaster_recrawl_backlog" USING btree ("account_id","host_id","url");
--> statement-breakpoint
CREATE INDEX "yandex_webmaster_recrawl_backlog_added_idx" ON "yandex_webmaster_recrawl_backlog" USING btree ("added_at");
--> statement-breakpoint
-- Before this migration the column was a free uuid: ids that name no account are cleared so the key can hold.
UPDATE "domains" SET "yandex_webmaster_account_id" = NULL WHERE "yandex_webmaster_account_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_yandex_webmaster_account_id_fk" FOREIGN KEY ("yandex_webmaster_account_id") REFERENCES "public"."yandex_webmaster_accounts"("id") ON DELETE restrict ON UPDATE no action;
