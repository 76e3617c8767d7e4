CREATE SEQUENCE "public"."order_number_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1000 CACHE 1;--> statement-breakpoint
CREATE TABLE "cart_items" (
	"tenant_id" uuid NOT NULL,
	"cart_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"product_name" text NOT NULL,
	"product_type" text NOT NULL,
	"quantity" integer NOT NULL,
	"unit_price_cents" integer NOT NULL,
	"total_cents" integer NOT NULL,
	"list_cents" integer NOT NULL,
	"charges" jsonb NOT NULL,
	"applied_offers" jsonb NOT NULL,
	"applied_price_rules" jsonb NOT NULL,
	"requires_quote" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cart_items_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "carts" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"session_id" text NOT NULL,
	"status" text NOT NULL,
	"currency" text NOT NULL,
	"customer_context" jsonb NOT NULL,
	"contact_id" uuid,
	"organization_id" uuid,
	"promotion_id" uuid,
	"promo_code" text,
	"subtotal_cents" integer NOT NULL,
	"discount_cents" integer NOT NULL,
	"total_cents" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "carts_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"order_number" text NOT NULL,
	"sequence" bigint NOT NULL,
	"status" text NOT NULL,
	"items" jsonb NOT NULL,
	"total_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"contact_id" uuid,
	"organization_id" uuid,
	"journey_id" uuid,
	"cart_id" uuid,
	"customer_context" jsonb NOT NULL,
	"promo_code" text,
	"discount_cents" integer NOT NULL,
	"billing_account_id" text,
	"invoice_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "orders_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "usage_events" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"kind" text NOT NULL,
	"order_id" uuid NOT NULL,
	"quantity" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "usage_events_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "usage_metering" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "cart_items_cart_idx" ON "cart_items" USING btree ("tenant_id","cart_id");--> statement-breakpoint
CREATE INDEX "orders_tenant_created_idx" ON "orders" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "orders_tenant_cart_idx" ON "orders" USING btree ("tenant_id","cart_id");