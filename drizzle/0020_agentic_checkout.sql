CREATE TABLE "checkout_sessions" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"protocol" text NOT NULL,
	"status" text NOT NULL,
	"currency" text NOT NULL,
	"cart_id" uuid NOT NULL,
	"items" jsonb NOT NULL,
	"lines" jsonb NOT NULL,
	"buyer" jsonb,
	"address" jsonb,
	"fulfillment_options" jsonb NOT NULL,
	"selected_fulfillment_option_id" text,
	"discount_codes" jsonb NOT NULL,
	"applied_discounts" jsonb NOT NULL,
	"rejected_discounts" jsonb NOT NULL,
	"totals" jsonb NOT NULL,
	"total_cents" bigint NOT NULL,
	"messages" jsonb NOT NULL,
	"order_id" uuid,
	"payment_session_id" uuid,
	"continue_url" text,
	"platform_webhook_url" text,
	"platform_profile_url" text,
	"version" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "checkout_sessions_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "delegated_payment_tokens" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"card_last4" text NOT NULL,
	"card_brand" text,
	"card_fingerprint" text NOT NULL,
	"max_amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"checkout_session_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"metadata" jsonb NOT NULL,
	"used_at" timestamp with time zone,
	"used_for_order_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "delegated_payment_tokens_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "checkout_session_id" uuid;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "shipping" jsonb;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "requires_shipping" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "checkout_sessions_tenant_created_idx" ON "checkout_sessions" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "delegated_payment_tokens_tenant_hash_idx" ON "delegated_payment_tokens" USING btree ("tenant_id","token_hash");