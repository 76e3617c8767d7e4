import { type TSchema, Type } from 'typebox';
import { validationFailed } from '../core/errors.js';
import { StringEnum } from '../core/schema.js';
import { MAX_TAGS, TagBody, TagKey, type Tags } from '../core/tags.js';
import type { TagOperations } from '../unit-of-work/tags.js';
import { requireCtx } from './auth.js';
import type { RequestContext } from './context.js';
import type { Deps } from './deps.js';
import { Envelope } from './envelope.js';
import { errorResponses } from './errors.js';
import { type Presented, respond } from './operation.js';
import type { TypedApp } from './types.js';

/** The resource in its envelope, as its GET shows it. */
export type RowPresenter<Row> = (row: Row, ctx: RequestContext) => Presented;

/** One tagged resource: where it lives, how it is shown, and its tag operations. */
export interface TagTarget<Row extends { id: string; tags: Tags }> {
  /** The resource's collection under /api/v1, e.g. `orders`. */
  resource: string;
  /** The resource as GET presents it. */
  schema: TSchema;
  operations: TagOperations<Row>;
  /**
   * How the answer presents the row, made before the operation runs (it may read what the
   * resource's actions need, e.g. the order's invoice, outside the unit of work).
   */
  presenter(tenantId: string, id: string): RowPresenter<Row> | Promise<RowPresenter<Row>>;
}

// biome-ignore lint/suspicious/noExplicitAny: the targets' row types differ; each is used with its own.
type AnyTarget = TagTarget<any>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `PUT` and `DELETE /{resource}/{id}/tags/{key}` for every tagged resource, commerce scope: one
 * pair of operations (two MCP tools, not two per resource), each calling the resource's tag
 * operation and answering 200 with the whole resource.
 */
export function registerTagRoutes(app: TypedApp, deps: Deps, targets: readonly AnyTarget[]) {
  const byResource = new Map(targets.map((t) => [t.resource, t]));
  const names = targets.map((t) => t.resource);
  const params = Type.Object({
    resource: StringEnum(names, { description: 'The tagged resource’s collection.' }),
    id: Type.String({ format: 'uuid', description: 'The resource’s id.' }),
    key: TagKey,
  });
  const response = {
    200: Envelope(
      Type.Union(targets.map((t) => t.schema)),
      'The whole resource, as GET shows it, with its tags.',
    ),
    ...errorResponses(404),
  };
  const url = '/api/v1/:resource/:id/tags/:key';
  const events = targets.flatMap((t) =>
    t.operations.target.updated ? [t.operations.target.updated.event] : [],
  );
  const emits = events.length > 0 ? ` Emits ${events.map((e) => `\`${e}\``).join(', ')} for those.` : '';
  const resolve = (request: { params: unknown }) => {
    const { resource, id, key } = request.params as { resource: string; id: string; key: string };
    const target = byResource.get(resource) as AnyTarget;
    if (!UUID.test(id)) throw validationFailed('path.id', 'format', 'path.id must be a UUID');
    return { target, id, key };
  };

  app.put(
    url,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'setTag',
        summary: 'Set a tag',
        description: `Sets tag \`key\` of an account, order, subscription or payment session to \`value\` (the same value changes nothing); a ${MAX_TAGS + 1}st key is 400 \`maxTags\`.${emits}`,
        tags: ['Tags'],
        params,
        body: TagBody,
        response,
      },
    },
    async (request, reply) => {
      const { target, id, key } = resolve(request);
      const present = await target.presenter(requireCtx(request).tenantId, id);
      const input = { id, key, value: request.body.value };
      return respond(deps, request, reply, (ctx, k) => target.operations.set(deps, ctx, input, k), present);
    },
  );

  app.delete(
    url,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'deleteTag',
        summary: 'Delete a tag',
        description: `Removes tag \`key\` of an account, order, subscription or payment session (absent: no change).${emits}`,
        tags: ['Tags'],
        params,
        response,
      },
    },
    async (request, reply) => {
      const { target, id, key } = resolve(request);
      const present = await target.presenter(requireCtx(request).tenantId, id);
      return respond(
        deps,
        request,
        reply,
        (ctx, k) => target.operations.remove(deps, ctx, { id, key }, k),
        present,
      );
    },
  );
}
