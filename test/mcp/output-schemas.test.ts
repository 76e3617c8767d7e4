import { describe, expect, it } from 'vitest';
import { listedOutputSchema, wholeOutputSchema } from '../../src/mcp/output-schemas.js';

const json = (schema: Record<string, unknown>) => ({ content: { 'application/json': { schema } } });

const doc = {
  components: {
    schemas: {
      Node: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        },
        examples: [{ id: 'a' }],
      },
    },
  },
};

describe('output schemas from OpenAPI responses', () => {
  it('makes shared schemas local $defs (a schema referring to itself too) and drops examples', () => {
    const whole = wholeOutputSchema(
      { '200': json({ type: 'object', properties: { data: { $ref: '#/components/schemas/Node' } } }) },
      doc,
    );
    expect(whole).toEqual({
      type: 'object',
      properties: { data: { $ref: '#/$defs/Node' } },
      $defs: {
        Node: {
          type: 'object',
          required: ['id'],
          properties: {
            id: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
        },
      },
    });
    // The listing resolves the reference: data is an object.
    expect(listedOutputSchema(whole)).toEqual({ type: 'object', properties: { data: { type: 'object' } } });
  });

  it('answers { data: null } for a 204, wraps a body that is no object, and joins distinct 2xx bodies', () => {
    expect(wholeOutputSchema({ '204': { content: {} } }, doc)).toEqual({
      type: 'object',
      properties: { data: { type: 'null' } },
      required: ['data'],
    });
    expect(wholeOutputSchema({ '200': json({ type: 'array', items: { type: 'string' } }) }, doc)).toEqual({
      type: 'object',
      properties: { data: { type: 'array', items: { type: 'string' } } },
      required: ['data'],
    });
    const created = { type: 'object', properties: { data: { type: 'object' } } };
    const accepted = { type: 'object', properties: { data: { type: 'array', items: { type: 'object' } } } };
    const both = wholeOutputSchema(
      { '202': json(accepted), '201': json(created), '200': json(created) },
      doc,
    );
    expect(both).toEqual({ type: 'object', anyOf: [created, accepted] });
    expect(listedOutputSchema(both)).toEqual({ type: 'object', anyOf: [created, accepted] });
  });

  it('lists a union by its distinct top-level branches', () => {
    const union = {
      type: 'object',
      properties: {
        data: {
          anyOf: [
            { type: 'object', properties: { a: { type: 'string' } } },
            { type: 'object', properties: { b: { type: 'string' } } },
            { type: 'null' },
          ],
        },
      },
    };
    expect(listedOutputSchema(wholeOutputSchema({ '200': json(union) }, doc))).toEqual({
      type: 'object',
      properties: { data: { anyOf: [{ type: 'object' }, { type: 'null' }] } },
    });
  });
});
