CREATE TABLE "partners" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"name" text NOT NULL,
	"code" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "partners_tenant_id_id_pk" PRIMARY KEY("tenant_id","id"),
	CONSTRAINT "partners_status_check" CHECK ("partners"."status" in ('active', 'inactive'))
);
--> statement-breakpoint
CREATE TABLE "console_link_tokens" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "console_link_tokens_tenant_id_id_pk" PRIMARY KEY("tenant_id","id"),
	CONSTRAINT "console_link_tokens_purpose_check" CHECK ("console_link_tokens"."purpose" in ('sign_in', 'invitation', 'password_reset'))
);
--> statement-breakpoint
CREATE TABLE "console_login_failures" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"address" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "console_sessions_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "console_users" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"status" text NOT NULL,
	"password_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"last_sign_in_at" timestamp with time zone,
	CONSTRAINT "console_users_tenant_id_id_pk" PRIMARY KEY("tenant_id","id"),
	CONSTRAINT "console_users_role_check" CHECK ("console_users"."role" in ('owner', 'admin', 'developer', 'support', 'viewer')),
	CONSTRAINT "console_users_status_check" CHECK ("console_users"."status" in ('active', 'disabled'))
);
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "actor_user_id" uuid;--> statement-breakpoint
ALTER TABLE "console_link_tokens" ADD CONSTRAINT "console_link_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_users" ADD CONSTRAINT "console_users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "partners_tenant_code_key" ON "partners" USING btree ("tenant_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "console_link_tokens_token_hash_key" ON "console_link_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "console_link_tokens_tenant_user_idx" ON "console_link_tokens" USING btree ("tenant_id","user_id");--> statement-breakpoint
CREATE INDEX "console_login_failures_email_at_idx" ON "console_login_failures" USING btree ("email","at");--> statement-breakpoint
CREATE INDEX "console_login_failures_address_at_idx" ON "console_login_failures" USING btree ("address","at");--> statement-breakpoint
CREATE INDEX "console_login_failures_at_idx" ON "console_login_failures" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "console_sessions_token_hash_key" ON "console_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "console_sessions_tenant_user_idx" ON "console_sessions" USING btree ("tenant_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "console_users_email_key" ON "console_users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "console_users_tenant_created_idx" ON "console_users" USING btree ("tenant_id","created_at","id");