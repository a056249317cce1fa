ALTER TABLE "run_spans" ADD COLUMN "parent_tool_call_id" text;
