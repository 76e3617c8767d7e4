import { describe, expect, it } from 'vitest';
import { resourceOperations as committed } from '../../packages/client/src/generated/resources.js';
import {
  groupOf,
  methodNameOf,
  type OpenApiDocument,
  resourceOperations,
  resourcesModule,
} from '../../scripts/client-resources.js';

describe('resource method generator (scripts/client-resources.ts)', () => {
  it('groups by the first fixed path segment, and under /admin/ by the next', () => {
    expect(groupOf('/api/v1/orders/{id}')).toEqual(['orders']);
    expect(groupOf('/api/v1/payment-methods/{id}/set-default')).toEqual(['paymentMethods']);
    expect(groupOf('/api/v1/admin/price-rules/{id}')).toEqual(['admin', 'priceRules']);
    expect(groupOf('/api/v1/{resource}/{id}/tags/{key}')).toEqual(['tags']);
    expect(groupOf('/api/v1/openapi.json')).toEqual(['openapi']);
  });

  it('names a method by its operationId less the group noun right after the verb', () => {
    expect(methodNameOf('createOrder', ['orders'])).toBe('create');
    expect(methodNameOf('listOrders', ['orders'])).toBe('list');
    expect(methodNameOf('addCartItem', ['carts'])).toBe('addItem');
    expect(methodNameOf('revokeApiKey', ['admin', 'apiKeys'])).toBe('revoke');
    expect(methodNameOf('listPolicies', ['admin', 'policies'])).toBe('list');
    expect(methodNameOf('getOpenApiDocument', ['openapi'])).toBe('getDocument');
    expect(methodNameOf('resolvePrice', ['pricing'])).toBe('resolvePrice');
    expect(methodNameOf('previewPlanChange', ['preview'])).toBe('planChange');
    expect(methodNameOf('getTenantSettings', ['admin', 'settings'])).toBe('getTenantSettings');
  });

  const op = (operationId: string, extra: object = {}) => ({ operationId, summary: operationId, ...extra });
  const paging = [
    { name: 'limit', in: 'query' },
    { name: 'cursor', in: 'query' },
  ];
  const document: OpenApiDocument = {
    paths: {
      '/api/v1/orders': {
        get: op('listOrders', {
          parameters: paging,
          responses: {
            200: { content: { 'application/json': { schema: { properties: { data: { type: 'array' } } } } } },
          },
        }),
        post: op('createOrder', {
          requestBody: { required: true, content: { 'application/json': {} } },
        }),
      },
      '/api/v1/orders/{id}': { get: op('getOrder') },
      '/api/v1/widgets/{id}': { get: op('getWidget'), delete: op('getWidgets') },
      '/api/v1/widgets/{id}/parts': { get: op('getWidgetPart') },
      '/.well-known/agent-tools.json': { get: op('getAgentToolsDocument') },
    },
  };

  it('describes each operation: path parameters, input, list, and whole operationIds on a clash', () => {
    const ops = resourceOperations(document);
    expect(ops.map((o) => `${o.group.join('.')}.${o.name}`)).toEqual([
      'orders.create',
      'orders.get',
      'orders.list',
      'widgets.getPart',
      'widgets.getWidget',
      'widgets.getWidgets',
    ]);
    expect(ops.find((o) => o.operationId === 'createOrder')).toMatchObject({
      input: 'body',
      inputRequired: true,
      list: false,
    });
    expect(ops.find((o) => o.operationId === 'listOrders')).toMatchObject({ input: 'query', list: true });
    expect(ops.find((o) => o.operationId === 'getOrder')).toMatchObject({
      pathParams: ['id'],
      input: 'none',
    });
  });

  it('writes the same file whatever the order of the paths', () => {
    const reversed: OpenApiDocument = { paths: Object.fromEntries(Object.entries(document.paths).reverse()) };
    expect(resourcesModule(reversed)).toBe(resourcesModule(document));
    expect(resourcesModule(document)).toContain(
      "  list(query?: QueryOf<'listOrders'>, options?: RequestOptions): ListCall<ResultOf<'listOrders'>>;",
    );
  });

  it('the committed table has the typical flow’s methods', () => {
    const names = new Set(committed.map((o) => `${o.group.join('.')}.${o.name}`));
    for (const name of ['accounts.create', 'carts.addItem', 'orders.create', 'orders.get', 'orders.list']) {
      expect(names).toContain(name);
    }
    expect(committed.filter((o) => o.list).length).toBeGreaterThan(10);
  });
});
