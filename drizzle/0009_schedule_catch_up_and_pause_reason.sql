ALTER TABLE "scheduled_tasks" ADD COLUMN "skip_before" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "scheduled_tasks" ADD COLUMN "paused_reason" text;
