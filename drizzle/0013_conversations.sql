ALTER TABLE "sessions" ADD COLUMN "conversation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "conversation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "summaries" ADD COLUMN "conversation" integer DEFAULT 0 NOT NULL;
