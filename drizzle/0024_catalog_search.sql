-- Catalog search: full text (GIN over tsvector) and typo tolerance (pg_trgm trigram similarity).
-- pg_trgm is a trusted extension: the database owner may create it (PGlite loads it at open).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
ALTER TABLE "product_content" ADD COLUMN "search_vector" "tsvector";--> statement-breakpoint
CREATE INDEX "products_search_idx" ON "products" USING gin (to_tsvector('simple'::regconfig, name || ' ' || coalesce(description, '')));--> statement-breakpoint
CREATE INDEX "products_name_trgm_idx" ON "products" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "products_active_idx" ON "products" USING btree ("tenant_id","id") WHERE "products"."active";--> statement-breakpoint
CREATE INDEX "product_content_search_idx" ON "product_content" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "product_content_title_trgm_idx" ON "product_content" USING gin ("title" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "product_content_meta_drafts_idx" ON "product_content_meta" USING btree ("tenant_id","product_id") WHERE "product_content_meta"."status" = 'draft';--> statement-breakpoint
-- Content written before this migration: the same document searchVectorOf writes, without stemming.
UPDATE "product_content" SET "search_vector" =
  setweight(to_tsvector('simple'::regconfig, title), 'A') ||
  setweight(to_tsvector('simple'::regconfig, concat_ws(' ', brand, category)), 'B') ||
  setweight(to_tsvector('simple'::regconfig, concat_ws(' ',
    (SELECT string_agg((a->>'key') || ' ' || (a->>'value'), ' ') FROM jsonb_array_elements(attributes) a),
    description)), 'C');
