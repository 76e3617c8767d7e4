import { Ajv } from 'ajv';
import { parseDictionary } from 'structured-headers';
import { AppError } from '../../../core/errors.js';
import { BUSINESS_CAPABILITIES, CAPABILITY, type CapabilityName, UCP_VERSION } from './protocol.js';
import type { PlatformSigningKey } from './request-signature.js';

// Capability negotiation (overview.md, "Negotiation Protocol"): the platform names its profile in
// `UCP-Agent: profile="<url>"` (an RFC 8941 dictionary); its protocol version must be ours, and
// the active capabilities are those both declare at a common version, less extensions whose
// parent is not active. The platform's order webhook URL comes from its order capability config.

export const UCP_AGENT_HEADER = 'ucp-agent';

/** The `profile` member of a UCP-Agent header; 400 invalid_profile_url when absent or unreadable. */
export function profileUrlOf(header: string | string[] | undefined): string {
  const text = Array.isArray(header) ? header.join(', ') : header;
  if (text === undefined || text.trim() === '') {
    throw new AppError(
      'invalid_profile_url',
      'The UCP-Agent header is required: UCP-Agent: profile="https://platform.example/.well-known/ucp"',
    );
  }
  let profile: unknown;
  try {
    profile = parseDictionary(text).get('profile')?.[0];
  } catch {
    throw new AppError('invalid_profile_url', 'The UCP-Agent header is not an RFC 8941 dictionary');
  }
  if (typeof profile !== 'string' || profile === '') {
    throw new AppError('invalid_profile_url', 'The UCP-Agent header needs profile="<url>" (a quoted string)');
  }
  return profile;
}

const VERSION = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const NAME = { pattern: '^[a-z][a-z0-9]*(?:\\.[a-z][a-z0-9_]*)+$' };
const registry = (entity: object) => ({
  type: 'object',
  propertyNames: NAME,
  additionalProperties: { type: 'array', items: entity },
});
const ENTITY = {
  type: 'object',
  required: ['version'],
  properties: {
    version: VERSION,
    extends: {
      anyOf: [
        { type: 'string', ...NAME },
        { type: 'array', items: { type: 'string', ...NAME } },
      ],
    },
    config: { type: 'object' },
  },
};

/** What we need a platform profile to be (profile_schema.json, platform_profile, read leniently). */
const PLATFORM_PROFILE = {
  type: 'object',
  required: ['ucp'],
  properties: {
    ucp: {
      type: 'object',
      required: ['version', 'capabilities'],
      properties: {
        version: VERSION,
        services: registry({ ...ENTITY, required: ['version', 'transport'] }),
        capabilities: registry(ENTITY),
        payment_handlers: registry({ ...ENTITY, required: ['version', 'id'] }),
      },
    },
    signing_keys: { type: 'array', items: { type: 'object', required: ['kid', 'kty'] } },
  },
};

interface DeclaredCapability {
  version: string;
  config?: Record<string, unknown>;
}

export interface PlatformProfile {
  ucp: { version: string; capabilities: Record<string, DeclaredCapability[]> };
  signing_keys?: PlatformSigningKey[];
}

const checkProfile = new Ajv({ allErrors: false, strict: false }).compile(PLATFORM_PROFILE);

/** 422 profile_malformed unless `json` reads as a UCP platform profile. */
export function platformProfileOf(json: unknown): PlatformProfile {
  if (checkProfile(json)) return json as unknown as PlatformProfile;
  const first = checkProfile.errors?.[0];
  const where = first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'is invalid';
  throw new AppError('profile_malformed', `The platform profile is not a UCP profile: ${where}`);
}

export interface Negotiated {
  version: string;
  /** Active capabilities, with the version both support. */
  active: ReadonlyMap<CapabilityName, string>;
  /** The platform's order webhook URL (its order capability `config.webhook_url`), if it gave one. */
  webhookUrl: string | null;
  profileUrl: string;
  /** The keys the platform signs its requests with (its profile's `signing_keys`). */
  signingKeys: readonly PlatformSigningKey[];
}

const names = Object.keys(BUSINESS_CAPABILITIES) as CapabilityName[];

/**
 * The intersection of our capabilities with the platform's: a capability both declare at a common
 * version (the latest; we declare one each), then extensions whose parent is not active are
 * removed until none is. 422 version_unsupported when the platform's protocol version is not ours.
 */
export function negotiate(profile: PlatformProfile, profileUrl: string): Negotiated {
  if (profile.ucp.version !== UCP_VERSION) {
    throw new AppError(
      'version_unsupported',
      `Protocol version ${profile.ucp.version} is not supported. This business implements version ${UCP_VERSION}.`,
    );
  }
  const active = new Map<CapabilityName, string>();
  for (const name of names) {
    const ours = BUSINESS_CAPABILITIES[name].version;
    if ((profile.ucp.capabilities[name] ?? []).some((c) => c.version === ours)) active.set(name, ours);
  }
  for (let pruned = true; pruned; ) {
    pruned = false;
    for (const name of active.keys()) {
      const parent = BUSINESS_CAPABILITIES[name].extends;
      if (parent && !active.has(parent as CapabilityName)) pruned = active.delete(name);
    }
  }
  return {
    version: UCP_VERSION,
    active,
    webhookUrl: webhookUrlOf(profile, active),
    profileUrl,
    signingKeys: profile.signing_keys ?? [],
  };
}

function webhookUrlOf(profile: PlatformProfile, active: ReadonlyMap<CapabilityName, string>): string | null {
  const version = active.get(CAPABILITY.order);
  if (!version) return null;
  const url = profile.ucp.capabilities[CAPABILITY.order]?.find((c) => c.version === version)?.config
    ?.webhook_url;
  if (url === undefined) return null;
  if (typeof url !== 'string' || !URL.canParse(url)) {
    throw new AppError(
      'profile_malformed',
      'The platform profile’s order capability config.webhook_url is not a URL',
    );
  }
  return url;
}

/** The active capabilities relevant to a response about `root` (it, and the extensions of it). */
export function capabilitiesFor(
  negotiated: Negotiated,
  root: CapabilityName,
): Record<string, { version: string }[]> {
  const out: Record<string, { version: string }[]> = {};
  for (const [name, version] of negotiated.active) {
    if (name === root || BUSINESS_CAPABILITIES[name].extends === root) out[name] = [{ version }];
  }
  return out;
}

/**
 * Negotiation that leaves the operation's capability out: UCP answers 200 with an error response
 * (overview.md, "capabilities_incompatible"), and nothing is done.
 */
export function incompatible(negotiated: Negotiated, root: CapabilityName) {
  if (negotiated.active.has(root)) return undefined;
  return {
    ucp: { version: negotiated.version, status: 'error' as const, capabilities: {} },
    messages: [
      {
        type: 'error' as const,
        code: 'capabilities_incompatible',
        content: `The platform profile does not declare ${root} at version ${BUSINESS_CAPABILITIES[root].version}.`,
        severity: 'unrecoverable' as const,
      },
    ],
  };
}
