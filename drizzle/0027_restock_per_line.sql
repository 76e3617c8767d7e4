ALTER TABLE "refunds" ADD COLUMN "restock" jsonb;--> statement-breakpoint
ALTER TABLE "order_stock" ADD COLUMN "restocked" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_stock" ADD CONSTRAINT "order_stock_restocked" CHECK ("order_stock"."restocked" >= 0 and "order_stock"."restocked" <= "order_stock"."quantity");