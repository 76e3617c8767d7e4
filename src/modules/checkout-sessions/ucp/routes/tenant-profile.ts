import { notFound } from '../../../../core/errors.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { getTenant } from '../../../tenants/index.js';
import { businessProfile } from '../binding.js';
import { Answer } from '../schemas/common.js';
import { profileExample } from '../schemas/examples.js';
import { BusinessProfile, TenantProfileParams } from '../schemas/order.js';
import { ucpProfileEdge } from './edge.js';
import { errorAnswers, TAGS } from './responses.js';
import { PROFILE_DESCRIPTION } from './well-known.js';

export const getUcpTenantProfile = defineRoute({
  method: 'GET',
  path: '/ucp/t/:tenant/.well-known/ucp',
  prefix: '',
  protocol: ucpProfileEdge,
  public: false,
  operationId: 'ucpGetTenantProfile',
  summary: 'UCP: a business profile, public',
  description: `${PROFILE_DESCRIPTION} Public (no key): the business is the tenant in the path; 404 for an unknown one.`,
  tags: TAGS,
  scope: null,
  params: TenantProfileParams,
  responses: {
    200: Answer(BusinessProfile, 'The business profile.', profileExample),
    ...errorAnswers(400, 404),
  },
  handler: async (request, reply, deps) => {
    const tenant = await getTenant(deps.db, request.params.tenant);
    if (!tenant) throw notFound('Business');
    return reply.send(await businessProfile(deps, tenant.id));
  },
});
