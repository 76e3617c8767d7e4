CREATE TABLE "subscriptions" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"product_name" text NOT NULL,
	"parent_subscription_id" uuid,
	"contact_id" uuid,
	"organization_id" uuid,
	"order_id" uuid,
	"billing_account_id" text,
	"billing_subscription_id" text,
	"quantity" integer NOT NULL,
	"price_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"billing_interval" text NOT NULL,
	"status" text NOT NULL,
	"customer_context" jsonb NOT NULL,
	"billing_anchor" timestamp with time zone NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone NOT NULL,
	"pending_change" jsonb,
	"cancelled_at" timestamp with time zone,
	"version" integer NOT NULL,
	"operation_key" text,
	"operation_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "subscriptions_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE INDEX "subscriptions_tenant_created_idx" ON "subscriptions" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "subscriptions_tenant_org_idx" ON "subscriptions" USING btree ("tenant_id","organization_id");--> statement-breakpoint
CREATE INDEX "subscriptions_tenant_parent_idx" ON "subscriptions" USING btree ("tenant_id","parent_subscription_id");--> statement-breakpoint
CREATE INDEX "subscriptions_due_idx" ON "subscriptions" USING btree ("current_period_end");--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_billing_subscription_key" ON "subscriptions" USING btree ("tenant_id","billing_subscription_id");