import { sample } from 'openapi-sampler';

type Json = Record<string, unknown>;
const SUCCESS = /^2\d\d$/;

/**
 * Every success response with a JSON body gets an example: where a route gave none of its own
 * (the typical flow has examples recorded from the real routes, next to the routes that return them), one is
 * generated from the response schema with Redocly's `openapi-sampler` (formats, enums, bounds
 * and `$ref`s into the document honoured). Agents and the reference page then show a shape for
 * every operation; `test/platform/openapi-examples.test.ts` checks each against its schema.
 */
export function addSampledResponseExamples<T extends object>(
  document: T,
  completeActions: (body: unknown) => void,
): T {
  const doc = document as Json;
  for (const media of successMedia(doc)) {
    if (!media.schema) continue;
    if ('example' in media) {
      // A recorded example's actions get their operationId and arguments as a live response's do.
      completeActions(media.example);
      continue;
    }
    if ('examples' in media) continue;
    try {
      const example = sample(
        media.schema as never,
        { quiet: true, enablePatterns: true },
        doc as never,
      ) as Json;
      // A sampled action would name no real operation: a sampled envelope shows none.
      if (Array.isArray(example?.nextActions)) example.nextActions = [];
      media.example = example;
    } catch {
      // A schema the sampler cannot walk keeps no example rather than failing the document.
    }
  }
  return document;
}

/** The JSON media of every success response in the document. */
function successMedia(doc: Json): Json[] {
  const found: Json[] = [];
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const item of Object.values(paths))
    for (const operation of Object.values(item))
      for (const [status, response] of Object.entries((operation?.responses ?? {}) as Record<string, Json>)) {
        const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
        if (SUCCESS.test(status) && media) found.push(media);
      }
  return found;
}
