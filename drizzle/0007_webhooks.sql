CREATE TABLE "webhook_attempts" (
	"tenant_id" uuid NOT NULL,
	"subscription_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"response_status" integer,
	"duration_ms" integer NOT NULL,
	"response_body" text,
	"error" text,
	CONSTRAINT "webhook_attempts_tenant_id_subscription_id_event_id_attempt_pk" PRIMARY KEY("tenant_id","subscription_id","event_id","attempt")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"tenant_id" uuid NOT NULL,
	"subscription_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"status" text NOT NULL,
	"attempt_count" integer NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_response_status" integer,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "webhook_deliveries_tenant_id_subscription_id_event_id_pk" PRIMARY KEY("tenant_id","subscription_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_subscriptions" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"is_active" boolean NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"previous_secret_ciphertext" text,
	"previous_secret_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "webhook_subscriptions_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subscription_idx" ON "webhook_deliveries" USING btree ("tenant_id","subscription_id","created_at");