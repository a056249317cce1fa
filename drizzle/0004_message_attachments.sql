ALTER TABLE "messages" ADD COLUMN "attachments" jsonb;
--> statement-breakpoint
ALTER TABLE "run_spans" DROP CONSTRAINT "run_spans_kind_check";--> statement-breakpoint
ALTER TABLE "run_spans" ADD CONSTRAINT "run_spans_kind_check" CHECK ("run_spans"."kind" in ('llm', 'tool', 'media'));
