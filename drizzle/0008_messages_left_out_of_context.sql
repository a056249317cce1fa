ALTER TABLE "messages" ADD COLUMN "omitted_from_context" boolean DEFAULT false NOT NULL;
