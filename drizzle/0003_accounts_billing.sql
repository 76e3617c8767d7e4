CREATE TABLE "billing_accounts" (
	"tenant_id" uuid NOT NULL,
	"id" text NOT NULL,
	"account_number" text NOT NULL,
	"name" text NOT NULL,
	"currency" text NOT NULL,
	"contacts" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "billing_accounts_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "billing_integrations" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"adapter" text NOT NULL,
	"config" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_invoice_lines" (
	"tenant_id" uuid NOT NULL,
	"invoice_id" text NOT NULL,
	"position" integer NOT NULL,
	"description" text NOT NULL,
	"quantity" integer NOT NULL,
	"unit_amount_cents" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	CONSTRAINT "billing_invoice_lines_tenant_id_invoice_id_position_pk" PRIMARY KEY("tenant_id","invoice_id","position")
);
--> statement-breakpoint
CREATE TABLE "billing_invoices" (
	"tenant_id" uuid NOT NULL,
	"id" text NOT NULL,
	"account_id" text NOT NULL,
	"invoice_number" text NOT NULL,
	"invoice_date" date NOT NULL,
	"due_date" date NOT NULL,
	"currency" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"balance_cents" bigint NOT NULL,
	"status" text NOT NULL,
	"idempotency_key" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "billing_invoices_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "billing_operations" (
	"tenant_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "billing_operations_tenant_id_idempotency_key_pk" PRIMARY KEY("tenant_id","idempotency_key")
);
--> statement-breakpoint
CREATE TABLE "billing_payment_methods" (
	"tenant_id" uuid NOT NULL,
	"id" text NOT NULL,
	"account_id" text NOT NULL,
	"type" text NOT NULL,
	"card_type" text,
	"last_four" text NOT NULL,
	"expiration_month" integer,
	"expiration_year" integer,
	"is_default" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "billing_payment_methods_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "billing_payments" (
	"tenant_id" uuid NOT NULL,
	"id" text NOT NULL,
	"invoice_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"payment_reference" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "billing_payments_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "billing_subscriptions" (
	"tenant_id" uuid NOT NULL,
	"id" text NOT NULL,
	"account_id" text NOT NULL,
	"product_id" text NOT NULL,
	"product_name" text NOT NULL,
	"quantity" integer NOT NULL,
	"price_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"billing_interval" text NOT NULL,
	"status" text NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone NOT NULL,
	"credit_cents" bigint NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "billing_subscriptions_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"name" text NOT NULL,
	"external_id" text,
	"email" text,
	"phone" text,
	"website" text,
	"industry" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "organizations_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "billing_accounts_number_key" ON "billing_accounts" USING btree ("tenant_id","account_number");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_invoices_number_key" ON "billing_invoices" USING btree ("tenant_id","invoice_number");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_invoices_idempotency_key" ON "billing_invoices" USING btree ("tenant_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "billing_invoices_account_idx" ON "billing_invoices" USING btree ("tenant_id","account_id","created_at");--> statement-breakpoint
CREATE INDEX "billing_payment_methods_account_idx" ON "billing_payment_methods" USING btree ("tenant_id","account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_payments_idempotency_key" ON "billing_payments" USING btree ("tenant_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "billing_payments_invoice_idx" ON "billing_payments" USING btree ("tenant_id","invoice_id");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_subscriptions_idempotency_key" ON "billing_subscriptions" USING btree ("tenant_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "billing_subscriptions_account_idx" ON "billing_subscriptions" USING btree ("tenant_id","account_id");--> statement-breakpoint
CREATE INDEX "organizations_tenant_created_idx" ON "organizations" USING btree ("tenant_id","created_at");