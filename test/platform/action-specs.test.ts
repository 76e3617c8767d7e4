import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { action, next } from '../../src/core/actions.js';
import { ActionOperations } from '../../src/http/action-operations.js';
import { nextActionsFor } from '../../src/http/envelope.js';
import { startApp, type TestApp } from '../harness.js';

// nextActions name operations (`next('self', 'getOrder', { id })`); the route table supplies their
// method, path and scope. An operationId no route declares would fail at request time: this walks
// every action spec in src/ so it fails here first.

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every `next(rel, operationId ...)` call in src/, with where it is. */
function actionSpecs(): { where: string; operationId: string | null }[] {
  const found: { where: string; operationId: string | null }[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?<![.\w])next\(\s*('[^']*'|[^,()]+),\s*([^,)\s]+)/g)) {
      const literal = /^'([A-Za-z]+)'$/.exec(m[2] ?? '');
      const line = text.slice(0, m.index).split('\n').length;
      found.push({ where: `${path.relative(SRC, file)}:${line}`, operationId: literal?.[1] ?? null });
    }
  }
  return found;
}

describe('action specs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.app.close();
  });

  it('name, with a literal, an operation a route declares', () => {
    const declared = new Set(t.app.registry.publicOperations.map((op) => op.operationId));
    const specs = actionSpecs();
    expect(specs.length).toBeGreaterThan(5);
    // admin-crud.ts names the operations it declares itself (`ids.get`); every other action names a literal.
    const wrong = specs.filter(
      (s) =>
        (s.operationId === null && !s.where.startsWith('http/admin-crud.ts')) ||
        (s.operationId !== null && !declared.has(s.operationId)),
    );
    expect(wrong).toEqual([]);
  });

  it('resolve to exactly what the same action by method and path gives', () => {
    const resolver = new ActionOperations(t.app.registry.publicOperations);
    const ctx = { scopes: ['read'] } as never;
    const pairs = [
      [next('self', 'getOrder', { id: 'o-1' }), action('self', 'GET', '/orders/o-1', 'read')],
      [next('update', 'updateOrder', { id: 'o-1' }), action('update', 'PATCH', '/orders/o-1', 'commerce')],
      [
        next('subscriptions', 'listSubscriptions', { orderId: 'o-1' }),
        action('subscriptions', 'GET', '/subscriptions?orderId=o-1', 'read'),
      ],
      [
        next('payInvoice', 'payInvoice', { id: 'in_1', amountCents: 5, currency: 'USD' }),
        action('payInvoice', 'POST', '/invoices/in_1/pay', 'commerce', { amountCents: 5, currency: 'USD' }),
      ],
    ] as const;
    for (const [byOperation, byPath] of pairs) {
      const [a] = nextActionsFor(ctx, [byOperation]);
      const [b] = nextActionsFor(ctx, [byPath]);
      const body = { nextActions: [a, b] };
      resolver.complete(body.nextActions as never);
      expect(JSON.stringify(body.nextActions[0])).toBe(JSON.stringify(body.nextActions[1]));
    }
  });

  it('fail loudly on an operationId no route declares or a missing path parameter', () => {
    const resolver = new ActionOperations(t.app.registry.publicOperations);
    const unknown = nextActionsFor(null, [next('self', 'getOrdr', { id: 'x' })]);
    expect(() => resolver.complete(unknown)).toThrow(/getOrdr/);
    const missing = nextActionsFor(null, [next('self', 'getOrder')]);
    expect(() => resolver.complete(missing)).toThrow(/"id"/);
  });
});
