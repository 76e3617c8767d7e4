DROP INDEX "webhook_deliveries_due_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "cycle_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "lease_token" uuid;--> statement-breakpoint
CREATE INDEX "webhook_attempts_recent_idx" ON "webhook_attempts" USING btree ("tenant_id","subscription_id","attempted_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_last_attempt_idx" ON "webhook_deliveries" USING btree ("tenant_id","subscription_id","last_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" in ('pending', 'failed');