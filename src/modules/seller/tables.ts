import type { JsonWebKey } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

/** An agent platform's public key for ACP request signatures: EC P-256 or P-384, as a JWK. */
export interface AcpRequestKey {
  kid: string;
  kty: 'EC';
  crv: 'P-256' | 'P-384';
  x: string;
  y: string;
}

/**
 * How the tenant presents itself to buyers and agents: the links the agentic checkout bindings
 * show (terms of use, privacy and return policies) and where to get support. One row per tenant,
 * written on the first PATCH /seller; before it the profile reads as its defaults.
 */
export const sellerProfiles = distributedTable(
  pgTable(
    'seller_profiles',
    {
      tenantId: uuid('tenant_id').notNull(),
      /** Null: the tenant's name. */
      displayName: text('display_name'),
      supportEmail: text('support_email'),
      supportUrl: text('support_url'),
      termsOfUseUrl: text('terms_of_use_url'),
      privacyPolicyUrl: text('privacy_policy_url'),
      returnPolicyUrl: text('return_policy_url'),
      /**
       * Public keys (EC JWKs with a `kid`) of the agent platforms allowed to send ACP requests;
       * while there is one, every ACP request must be signed by one of them (acp/request-signature.ts).
       */
      acpRequestKeys: jsonb('acp_request_keys').$type<AcpRequestKey[]>().notNull().default(sql`'[]'::jsonb`),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId] })],
  ),
);

export const SIGNING_KEY_STATUSES = ['active', 'retired'] as const;
export type SigningKeyStatus = (typeof SIGNING_KEY_STATUSES)[number];

/**
 * The tenant's EC P-256 key pairs signing what it sends to agent platforms (UCP webhooks, RFC 9421).
 * One is `active` (signs); a rotation retires it, and a retired key is still published for a grace
 * period so signatures made just before the rotation still verify. The private key is kept only
 * sealed by the key ring.
 */
export const sellerSigningKeys = distributedTable(
  pgTable(
    'seller_signing_keys',
    {
      tenantId: uuid('tenant_id').notNull(),
      /** The key id: the RFC 7638 thumbprint of the public JWK. */
      kid: text('kid').notNull(),
      /** The public JWK (kty, crv, x, y). */
      publicJwk: jsonb('public_jwk').notNull().$type<JsonWebKey>(),
      /** The private key (PKCS #8 PEM), sealed by the key ring. */
      privateKeyCiphertext: text('private_key_ciphertext').notNull(),
      status: text('status').notNull().$type<SigningKeyStatus>(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      retiredAt: timestamp('retired_at', { withTimezone: true }),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.kid] }),
      // One active key per tenant: two first uses at once create one, the other finds it.
      uniqueIndex('seller_signing_keys_active_idx').on(t.tenantId).where(sql`status = 'active'`),
    ],
  ),
  (t) => [{ column: t.privateKeyCiphertext, key: [t.tenantId, t.kid], purpose: 'signing_key' }],
);
