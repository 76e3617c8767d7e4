ALTER TABLE "orders" ADD COLUMN "due_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "paid_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "refunded_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "payment_status" text DEFAULT 'unpaid' NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_sessions" ADD COLUMN "order_id" uuid;--> statement-breakpoint
ALTER TABLE "payment_sessions" ADD COLUMN "reversal" jsonb;--> statement-breakpoint
CREATE INDEX "orders_tenant_invoice_idx" ON "orders" USING btree ("tenant_id","invoice_id");--> statement-breakpoint
CREATE INDEX "orders_tenant_payment_status_idx" ON "orders" USING btree ("tenant_id","payment_status","sequence");--> statement-breakpoint
CREATE INDEX "payment_sessions_tenant_order_idx" ON "payment_sessions" USING btree ("tenant_id","order_id");--> statement-breakpoint
-- Backfill (hand-written): what an existing order asks to be paid is its total; sessions that
-- paid an order's invoice belong to the order; what they paid and gave back sets its status
-- (the rule of src/modules/orders/payment-state.ts).
UPDATE "orders" SET "due_cents" = "total_cents";--> statement-breakpoint
UPDATE "payment_sessions" ps SET "order_id" = o."id" FROM "orders" o
WHERE o."tenant_id" = ps."tenant_id" AND o."invoice_id" = ps."invoice_id" AND ps."order_id" IS NULL;--> statement-breakpoint
UPDATE "orders" o SET "paid_cents" = p."paid", "refunded_cents" = p."refunded",
  "payment_status" = CASE
    WHEN p."refunded" > 0 AND p."refunded" >= p."paid" THEN 'refunded'
    WHEN p."refunded" > 0 THEN 'partially_refunded'
    WHEN p."paid" > 0 AND p."paid" >= o."due_cents" THEN 'paid'
    WHEN p."paid" > 0 THEN 'partially_paid'
    ELSE 'unpaid' END
FROM (SELECT "tenant_id", "order_id", sum("amount_cents") AS "paid", sum("refunded_cents") AS "refunded"
      FROM "payment_sessions" WHERE "order_id" IS NOT NULL AND "status" = 'success'
      GROUP BY "tenant_id", "order_id") p
WHERE o."tenant_id" = p."tenant_id" AND o."id" = p."order_id";
