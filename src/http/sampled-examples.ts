import { sample } from 'openapi-sampler';

type Json = Record<string, unknown>;
const SUCCESS = /^2\d\d$/;

/**
 * Every success response with a JSON body gets an example: where a route gave none of its own
 * (the typical flow has examples recorded from the real routes, `http/examples.ts`), one is
 * generated from the response schema with Redocly's `openapi-sampler` (formats, enums, bounds
 * and `$ref`s into the document honoured). Agents and the reference page then show a shape for
 * every operation; `test/openapi-examples.test.ts` checks each against its schema.
 */
export function addSampledResponseExamples<T extends object>(document: T): T {
  const doc = document as Json;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const responses = (operation?.responses ?? {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (!SUCCESS.test(status)) continue;
        const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
        if (!media?.schema || 'example' in media || 'examples' in media) continue;
        try {
          media.example = sample(media.schema as never, { quiet: true, enablePatterns: true }, doc as never);
        } catch {
          // A schema the sampler cannot walk keeps no example rather than failing the document.
        }
      }
    }
  }
  return document;
}
