CREATE TABLE "seller_profiles" (
	"tenant_id" uuid NOT NULL,
	"display_name" text,
	"support_email" text,
	"support_url" text,
	"terms_of_use_url" text,
	"privacy_policy_url" text,
	"return_policy_url" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "seller_profiles_tenant_id_pk" PRIMARY KEY("tenant_id")
);
--> statement-breakpoint
CREATE TABLE "seller_signing_keys" (
	"tenant_id" uuid NOT NULL,
	"kid" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key_ciphertext" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"retired_at" timestamp with time zone,
	CONSTRAINT "seller_signing_keys_tenant_id_kid_pk" PRIMARY KEY("tenant_id","kid")
);
--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ALTER COLUMN "secret_ciphertext" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "format" text DEFAULT 'native' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "agent_profile_url" text;--> statement-breakpoint
CREATE UNIQUE INDEX "seller_signing_keys_active_idx" ON "seller_signing_keys" USING btree ("tenant_id") WHERE status = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_subscriptions_platform_idx" ON "webhook_subscriptions" USING btree ("tenant_id","url") WHERE format = 'ucp';