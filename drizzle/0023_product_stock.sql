CREATE TABLE "order_stock" (
	"tenant_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"quantity" integer NOT NULL,
	"state" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "order_stock_tenant_id_order_id_product_id_pk" PRIMARY KEY("tenant_id","order_id","product_id")
);
--> statement-breakpoint
CREATE TABLE "product_stock" (
	"tenant_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"tracked" boolean NOT NULL,
	"on_hand" integer NOT NULL,
	"reserved" integer DEFAULT 0 NOT NULL,
	"low_threshold" integer,
	"availability" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "product_stock_tenant_id_product_id_pk" PRIMARY KEY("tenant_id","product_id"),
	CONSTRAINT "product_stock_counts" CHECK ("product_stock"."on_hand" >= 0 and "product_stock"."reserved" >= 0)
);
