CREATE TABLE "people" (
	"channel" text NOT NULL,
	"user_id" text NOT NULL,
	"name" text,
	"username" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "people_channel_user_id_pk" PRIMARY KEY("channel","user_id")
);
--> statement-breakpoint
CREATE INDEX "sessions_channel_account_id_chat_id_index" ON "sessions" USING btree ("channel","account_id","chat_id");
