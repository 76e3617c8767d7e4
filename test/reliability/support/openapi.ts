import type { Call } from './world.js';

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  scope: 'read' | 'commerce' | 'admin' | null;
  parameters: { name: string; in: string; required?: boolean; schema: any }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: any }> };
  responses: Record<string, { content?: Record<string, { schema?: any }> }>;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown> };
}

export async function fetchDocument(call: Call): Promise<OpenApiDoc> {
  const res = await call('GET', '/api/v1/openapi.json', undefined);
  if (res.status !== 200) throw new Error(`openapi.json -> ${res.status}`);
  return res.json();
}

export function operations(doc: OpenApiDoc): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      operationId: op.operationId,
      scope: op['x-required-scope'] ?? null,
      parameters: op.parameters ?? [],
      requestBody: op.requestBody,
      responses: op.responses,
    })),
  );
}

export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

/** encodeURIComponent that does not throw on a lone surrogate (sent as U+FFFD, as UTF-8 would). */
export const encodePathValue = (value: string) =>
  encodeURIComponent(
    value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

export const fillPath = (path: string, values: Record<string, string>) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => encodePathValue(values[name] ?? ''));
