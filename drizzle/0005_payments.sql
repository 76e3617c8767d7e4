CREATE TABLE "payment_methods" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"account_id" text NOT NULL,
	"type" text NOT NULL,
	"card_type" text,
	"last_four" text NOT NULL,
	"expiration_month" integer,
	"expiration_year" integer,
	"is_default" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payment_methods_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "payment_sessions" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"account_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"invoice_id" text,
	"payment_page_slug" text,
	"resolved_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payment_sessions_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "provider_events" (
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	CONSTRAINT "provider_events_tenant_id_provider_event_id_pk" PRIMARY KEY("tenant_id","provider","event_id")
);
--> statement-breakpoint
CREATE TABLE "provider_integrations" (
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "provider_integrations_tenant_id_provider_pk" PRIMARY KEY("tenant_id","provider")
);
--> statement-breakpoint
CREATE INDEX "payment_methods_account_idx" ON "payment_methods" USING btree ("tenant_id","account_id");--> statement-breakpoint
CREATE INDEX "payment_sessions_tenant_created_idx" ON "payment_sessions" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "provider_integrations_endpoint_key" ON "provider_integrations" USING btree ("endpoint_id");