CREATE TABLE "intents" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"operation_id" text NOT NULL,
	"operation" text NOT NULL,
	"recovery" text NOT NULL,
	"status" text NOT NULL,
	"attempt" integer NOT NULL,
	"subject_type" text,
	"subject_id" text,
	"plan" jsonb NOT NULL,
	"effects" jsonb NOT NULL,
	"actor_key_id" uuid,
	"request_id" text NOT NULL,
	"lease_token" uuid,
	"lease_until" timestamp with time zone NOT NULL,
	"runs" integer NOT NULL,
	"last_error" text,
	"resolved_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "intents_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "payment_sessions" ADD COLUMN "operation_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "intents_operation_key" ON "intents" USING btree ("tenant_id","operation_id");--> statement-breakpoint
CREATE INDEX "intents_tenant_created_idx" ON "intents" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "intents_pending_idx" ON "intents" USING btree ("lease_until") WHERE status = 'pending';