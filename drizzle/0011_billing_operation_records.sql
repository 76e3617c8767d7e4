ALTER TABLE "billing_invoices" ADD COLUMN "subscription_id" text;--> statement-breakpoint
ALTER TABLE "billing_operations" ADD COLUMN "kind" text DEFAULT 'subscription' NOT NULL;