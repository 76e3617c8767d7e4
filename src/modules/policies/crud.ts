import { defineCrud } from '../../unit-of-work/index.js';
import { POLICY_INPUTS_DOC, PolicyCreate, PolicySchema, PolicyUpdate } from './schemas.js';
import { policyService } from './service.js';

/** Policies: tenant rules, written as JSONLogic, that can block operations (routes and seed loader). */
export const policyCrud = defineCrud({
  name: 'Policy',
  plural: 'Policies',
  path: '/admin/policies',
  tag: 'Policies admin',
  about:
    'A policy is a tenant rule guarding an operation (order creation, order update, plan change): a JSONLogic ' +
    '`condition` over the operation’s input and an `effect`. Every active policy of the type is evaluated; ' +
    'a `block` policy whose condition holds blocks the operation (403 `policy_blocked` naming it) unless an ' +
    '`allow` policy’s condition also holds: `allow` policies are exceptions that override blocks. A ' +
    'condition that fails at run time counts as `block` (fail closed). ' +
    POLICY_INPUTS_DOC,
  schema: PolicySchema,
  createBody: PolicyCreate,
  updateBody: PolicyUpdate,
  audit: {
    resourceType: 'policy',
    create: 'policy.create',
    update: 'policy.update',
    delete: 'policy.delete',
  },
  service: policyService,
});
