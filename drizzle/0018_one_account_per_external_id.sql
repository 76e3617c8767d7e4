-- Hand-written backfill (issue 27, item 4): one account per externalId in a tenant. Where several
-- share one, the oldest keeps it (credit already resolved the link to the oldest); the newer ones'
-- credit entries move to it (their credit could pay nothing, and the oldest's pays the billing
-- account's invoices), and the newer ones lose their externalId.
UPDATE "credit_entries" c SET "organization_id" = d."keeper_id"
FROM (SELECT "tenant_id", "id", first_value("id") OVER (PARTITION BY "tenant_id", "external_id" ORDER BY "created_at", "id") AS "keeper_id"
      FROM "organizations" WHERE "external_id" IS NOT NULL) d
WHERE c."tenant_id" = d."tenant_id" AND c."organization_id" = d."id" AND d."id" <> d."keeper_id";--> statement-breakpoint
UPDATE "organizations" o SET "external_id" = NULL
FROM (SELECT "tenant_id", "id", first_value("id") OVER (PARTITION BY "tenant_id", "external_id" ORDER BY "created_at", "id") AS "keeper_id"
      FROM "organizations" WHERE "external_id" IS NOT NULL) d
WHERE o."tenant_id" = d."tenant_id" AND o."id" = d."id" AND d."id" <> d."keeper_id";--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_tenant_external_id_key" ON "organizations" USING btree ("tenant_id","external_id") WHERE external_id is not null;
