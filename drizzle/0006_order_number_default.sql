ALTER TABLE "orders" ALTER COLUMN "sequence" SET DEFAULT nextval('order_number_seq');--> statement-breakpoint
ALTER TABLE "orders" DROP COLUMN "order_number";