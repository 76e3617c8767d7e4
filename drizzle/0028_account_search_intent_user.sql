-- Customer search (GET /accounts?q=): a substring of the name or the email, any case, served by trigram
-- indexes (pg_trgm, created by 0024). And the console user an intent was started by, so the write the
-- reconciler resumes is audited with it.
ALTER TABLE "intents" ADD COLUMN "actor_user_id" uuid;--> statement-breakpoint
CREATE INDEX "organizations_name_trgm_idx" ON "organizations" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "organizations_email_trgm_idx" ON "organizations" USING gin ("email" gin_trgm_ops);