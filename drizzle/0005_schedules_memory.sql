CREATE TABLE "scheduled_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"chat_key" text NOT NULL,
	"session_key" text NOT NULL,
	"agent_id" text NOT NULL,
	"conversation" jsonb NOT NULL,
	"thread_kind" text,
	"creator_id" text NOT NULL,
	"creator_name" text,
	"prompt" text NOT NULL,
	"kind" text NOT NULL,
	"schedule" text NOT NULL,
	"timezone" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"next_run_at" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_outcome" text,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scheduled_tasks_kind_check" CHECK ("scheduled_tasks"."kind" in ('at', 'cron', 'every')),
	CONSTRAINT "scheduled_tasks_status_check" CHECK ("scheduled_tasks"."status" in ('active', 'paused', 'done', 'cancelled'))
);
--> statement-breakpoint
CREATE INDEX "scheduled_tasks_chat_key_status_index" ON "scheduled_tasks" USING btree ("chat_key","status");--> statement-breakpoint
CREATE TABLE "memories" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "memories_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"scope" text NOT NULL,
	"text" text NOT NULL,
	"normalized" text NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "memories"."text")) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "memories_scope_normalized_index" ON "memories" USING btree ("scope","normalized");--> statement-breakpoint
CREATE INDEX "memories_scope_created_at_index" ON "memories" USING btree ("scope","created_at");--> statement-breakpoint
CREATE INDEX "memories_search_index" ON "memories" USING gin ("search");
