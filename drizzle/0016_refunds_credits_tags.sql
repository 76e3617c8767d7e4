CREATE TABLE "billing_refunds" (
	"tenant_id" uuid NOT NULL,
	"id" text NOT NULL,
	"invoice_id" text NOT NULL,
	"payment_reference" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "billing_refunds_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "credit_entries" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"invoice_id" text,
	"source_type" text,
	"source_id" text,
	"remaining_cents" bigint DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "credit_entries_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "refunds" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"payment_session_id" uuid NOT NULL,
	"account_id" text NOT NULL,
	"invoice_id" text,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text NOT NULL,
	"note" text,
	"status" text NOT NULL,
	"failure_message" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "refunds_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "billing_payments" ADD COLUMN "method" text DEFAULT 'payment' NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tags" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "tags" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_sessions" ADD COLUMN "refunded_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_sessions" ADD COLUMN "tags" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "billed_through" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "tags" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "auto_apply_credits" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_refunds_idempotency_key" ON "billing_refunds" USING btree ("tenant_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "billing_refunds_invoice_idx" ON "billing_refunds" USING btree ("tenant_id","invoice_id");--> statement-breakpoint
CREATE INDEX "credit_entries_account_idx" ON "credit_entries" USING btree ("tenant_id","organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "credit_entries_expiry_idx" ON "credit_entries" USING btree ("expires_at") WHERE remaining_cents > 0 and expires_at is not null;--> statement-breakpoint
CREATE INDEX "refunds_tenant_session_idx" ON "refunds" USING btree ("tenant_id","payment_session_id");--> statement-breakpoint
CREATE INDEX "refunds_tenant_created_idx" ON "refunds" USING btree ("tenant_id","created_at","id");