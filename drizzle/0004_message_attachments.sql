ALTER TABLE "messages" ADD COLUMN "attachments" jsonb;
