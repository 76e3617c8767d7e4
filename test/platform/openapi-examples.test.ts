import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TYPICAL_FLOW } from '../../src/core/agent-guide.js';
import { startApp, type TestApp } from '../harness.js';

type Media = { schema?: unknown; example?: unknown; examples?: Record<string, { value: unknown }> };
type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
};

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
type Named = { value?: unknown; $ref?: string };
// Error responses name shared examples (`components.examples`) by reference.
let sharedExamples: Record<string, { value: unknown }> = {};
const examplesOf = (media: Media | undefined) => [
  ...(media && 'example' in media ? [media.example] : []),
  ...Object.values((media?.examples ?? {}) as Record<string, Named>).map((e) =>
    e.$ref ? sharedExamples[e.$ref.replace('#/components/examples/', '')]?.value : e.value,
  ),
];

describe('OpenAPI examples', () => {
  let t: TestApp;
  let doc: Doc;
  let ajv: InstanceType<typeof Ajv2020.default>;

  beforeAll(async () => {
    t = await startApp();
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    sharedExamples = (doc.components as { examples?: typeof sharedExamples }).examples ?? {};
    ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(structuredClone(doc), 'openapi');
  });
  afterAll(() => t.app.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );

  it('every example matches the schema it illustrates', () => {
    let checked = 0;
    for (const { path, method, op } of operations()) {
      const media: [string, Media | undefined][] = [
        [
          pointer('paths', path, method, 'requestBody', 'content', 'application/json'),
          op.requestBody?.content['application/json'],
        ],
        ...Object.entries(op.responses).map(([status, r]): [string, Media | undefined] => [
          pointer('paths', path, method, 'responses', status, 'content', 'application/json'),
          r.content?.['application/json'],
        ]),
      ];
      for (const [where, m] of media) {
        for (const example of examplesOf(m)) {
          const validate = ajv.getSchema(`openapi#/${where}/schema`);
          expect(validate, where).toBeDefined();
          const valid = validate?.(example);
          expect(validate?.errors ?? [], `${op.operationId}: ${where}`).toEqual([]);
          expect(valid).toBe(true);
          checked++;
        }
      }
    }
    const errorExample = (doc.components.schemas.Error as { examples?: unknown[] }).examples?.[0];
    const validateError = ajv.getSchema('openapi#/components/schemas/Error');
    expect(validateError?.(errorExample), JSON.stringify(validateError?.errors)).toBe(true);
    expect(checked).toBeGreaterThan(15);
  });

  it('every operation that takes a body has a request example', () => {
    const missing = operations()
      .filter(
        ({ op }) => op.requestBody && examplesOf(op.requestBody.content['application/json']).length === 0,
      )
      .map(({ op }) => op.operationId);
    expect(missing).toEqual([]);
  });

  it('every operation has a response example for each success response with a JSON body', () => {
    const missing = operations().flatMap(({ op }) =>
      Object.entries(op.responses)
        .filter(([status, r]) => status.startsWith('2') && r.content?.['application/json'])
        .filter(([, r]) => examplesOf(r.content?.['application/json']).length === 0)
        .map(([status]) => `${op.operationId} ${status}`),
    );
    expect(missing).toEqual([]);
    const withResponse = operations().filter(({ op }) =>
      Object.entries(op.responses).some(([status, r]) => status.startsWith('2') && r.content),
    );
    expect(withResponse.length).toBeGreaterThan(90);
  });

  it('the typical flow has a request example (when it takes a body) and a response example', () => {
    const byId = new Map(operations().map(({ op }) => [op.operationId, op]));
    for (const id of [...TYPICAL_FLOW, 'createPaymentSession', 'getCart', 'getPaymentSession']) {
      const op = byId.get(id);
      expect(op, id).toBeDefined();
      if (op?.requestBody)
        expect(examplesOf(op.requestBody.content['application/json']).length, id).toBeGreaterThan(0);
      const success = Object.entries(op?.responses ?? {}).find(([status]) => status.startsWith('2'));
      expect(examplesOf(success?.[1].content?.['application/json']).length, id).toBeGreaterThan(0);
    }
  });
});
