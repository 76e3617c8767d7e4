CREATE TABLE "content_entries" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"key" text NOT NULL,
	"locale" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"version" integer NOT NULL,
	"published_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "content_entries_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "content_versions" (
	"tenant_id" uuid NOT NULL,
	"entry_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "content_versions_tenant_id_entry_id_version_pk" PRIMARY KEY("tenant_id","entry_id","version")
);
--> statement-breakpoint
CREATE TABLE "product_content" (
	"tenant_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"locale" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"media" jsonb NOT NULL,
	"brand" text,
	"gtin" text,
	"mpn" text,
	"condition" text,
	"category" text,
	"attributes" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "product_content_tenant_id_product_id_locale_pk" PRIMARY KEY("tenant_id","product_id","locale")
);
--> statement-breakpoint
CREATE TABLE "product_content_meta" (
	"tenant_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"slug" text,
	"status" text NOT NULL,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "product_content_meta_tenant_id_product_id_pk" PRIMARY KEY("tenant_id","product_id")
);
--> statement-breakpoint
CREATE TABLE "product_content_versions" (
	"tenant_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"change" text NOT NULL,
	"actor_key_id" uuid,
	"document" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "product_content_versions_tenant_id_product_id_version_pk" PRIMARY KEY("tenant_id","product_id","version")
);
--> statement-breakpoint
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
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "default_locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "content_entries_key_locale_idx" ON "content_entries" USING btree ("tenant_id","key","locale");--> statement-breakpoint
CREATE INDEX "content_entries_created_idx" ON "content_entries" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "product_content_meta_slug_idx" ON "product_content_meta" USING btree ("tenant_id","slug");