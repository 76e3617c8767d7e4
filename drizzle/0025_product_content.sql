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
ALTER TABLE "tenants" ADD COLUMN "default_locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "product_content_meta_slug_idx" ON "product_content_meta" USING btree ("tenant_id","slug");