import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../../core/errors.js';
import { authenticate } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import type { Deps } from '../../../../http/deps.js';
import { businessProfile } from '../binding.js';
import { Answer } from '../schemas/common.js';
import { profileExample } from '../schemas/examples.js';
import { BusinessProfile } from '../schemas/order.js';
import { ucpProfileEdge } from './edge.js';
import { errorAnswers, TAGS } from './responses.js';

/** The API key of the request: `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  return key ? `Bearer ${key.trim()}` : request.headers.authorization;
}

/** The tenant whose key the request carries; 401 without one (the public path needs none). */
async function callerTenant(deps: Deps, request: FastifyRequest): Promise<string> {
  const authorization = presentedKey(request);
  if (!authorization) {
    throw new AppError(
      'unauthorized',
      'Send the business’s API key (Authorization: Bearer or X-API-Key), or read its public profile at /ucp/t/{tenant id}/.well-known/ucp',
    );
  }
  const keyed = { headers: { authorization }, id: request.id } as unknown as FastifyRequest;
  return (await authenticate(keyed, deps.apiKeys, deps.config.appEnv)).tenantId;
}

export const PROFILE_DESCRIPTION =
  'The business profile (UCP discovery): protocol version 2026-04-08, the `dev.ucp.shopping` service ' +
  '(REST at `{base}/ucp/v1`, MCP at `{base}/ucp/mcp`), the catalog search and lookup, checkout, order, ' +
  'discount and fulfillment capabilities, the `com.example.sandbox_card` payment handler (id `sandbox_card`) and the EC P-256 ' +
  'keys that sign our order webhooks. Cache-Control: public, max-age=300; never a redirect.';

export const getUcpProfile = defineRoute({
  method: 'GET',
  path: '/.well-known/ucp',
  prefix: '',
  protocol: ucpProfileEdge,
  public: false,
  operationId: 'ucpGetProfile',
  summary: 'UCP: the business profile of the key’s tenant',
  description: `${PROFILE_DESCRIPTION} The tenant is the one of the API key sent (Authorization: Bearer or X-API-Key); without a key 401, with the public path to use instead.`,
  tags: TAGS,
  scope: null,
  responses: { 200: Answer(BusinessProfile, 'The business profile.', profileExample), ...errorAnswers(401) },
  handler: async (request, reply, deps) => {
    const tenantId = await callerTenant(deps, request);
    reply.header('Vary', 'Authorization, X-API-Key');
    return reply.send(await businessProfile(deps, tenantId));
  },
});
