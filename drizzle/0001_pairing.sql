CREATE TABLE "approved_senders" (
	"channel" text NOT NULL,
	"user_id" text NOT NULL,
	"user_name" text,
	"pairing_code" text,
	"approved_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "approved_senders_channel_user_id_pk" PRIMARY KEY("channel","user_id")
);
--> statement-breakpoint
CREATE TABLE "pairing_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"code" text NOT NULL,
	"channel" text NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"user_name" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"approved_at" timestamp with time zone,
	CONSTRAINT "pairing_requests_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE INDEX "pairing_requests_channel_expires_at_index" ON "pairing_requests" USING btree ("channel","expires_at");--> statement-breakpoint
CREATE INDEX "pairing_requests_channel_user_id_index" ON "pairing_requests" USING btree ("channel","user_id");