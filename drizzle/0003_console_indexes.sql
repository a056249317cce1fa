CREATE INDEX "sessions_updated_at_id_index" ON "sessions" USING btree ("updated_at","id");--> statement-breakpoint
CREATE INDEX "runs_session_id_started_at_index" ON "runs" USING btree ("session_id","started_at");--> statement-breakpoint
CREATE INDEX "runs_started_at_index" ON "runs" USING btree ("started_at");