ALTER TABLE "orders" ADD COLUMN "due_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "paid_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "refunded_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "payment_status" text DEFAULT 'unpaid' NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_sessions" ADD COLUMN "order_id" uuid;--> statement-breakpoint
ALTER TABLE "payment_sessions" ADD COLUMN "reversal" jsonb;--> statement-breakpoint
CREATE INDEX "orders_tenant_invoice_idx" ON "orders" USING btree ("tenant_id","invoice_id");--> statement-breakpoint
CREATE INDEX "orders_tenant_payment_status_idx" ON "orders" USING btree ("tenant_id","payment_status","sequence");--> statement-breakpoint
CREATE INDEX "payment_sessions_tenant_order_idx" ON "payment_sessions" USING btree ("tenant_id","order_id");
--> statement-breakpoint
-- Backfill (hand-written): what an existing order asks to be paid is its total.
UPDATE "orders" SET "due_cents" = "total_cents";
