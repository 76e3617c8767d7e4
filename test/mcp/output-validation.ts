import type { Client } from '@modelcontextprotocol/client';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

/**
 * Checks tool results against the schemas the server declares for them, with Ajv (JSON Schema
 * 2020-12, MCP's default dialect): the outputSchema tools/list gives, and the whole schema of the
 * tool's output schema resource. Each checked tool is remembered, so a test can require that a
 * representative set was checked.
 */
export class OutputSchemaChecker {
  readonly checked = new Set<string>();
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false });
  private readonly validators = new Map<string, { listed: ValidateFunction; whole: ValidateFunction }>();

  constructor() {
    addFormats.default(this.ajv);
    // OpenAPI's keywords that are no part of JSON Schema's vocabulary (annotations only).
    for (const keyword of ['x-required-scope', 'discriminator']) this.ajv.addKeyword(keyword);
  }

  /** The two validators of a tool, from the listing and the resource `client` is given. */
  private async validatorsOf(client: Client, tool: string) {
    const known = this.validators.get(tool);
    if (known) return known;
    const listed = (await client.listTools()).tools.find((t) => t.name === tool)?.outputSchema;
    expect(listed, `${tool} declares an outputSchema`).toBeDefined();
    const uri = `commerce://tools/${tool}/output-schema`;
    const read = await client.readResource({ uri });
    const whole = JSON.parse((read.contents[0] as { text: string }).text);
    const pair = { listed: this.ajv.compile(listed as object), whole: this.ajv.compile(whole) };
    this.validators.set(tool, pair);
    return pair;
  }

  /** Fails the test when a successful result does not validate against either schema. */
  async check(client: Client, tool: string, structuredContent: unknown) {
    const { listed, whole } = await this.validatorsOf(client, tool);
    expect(
      listed(structuredContent),
      `${tool} listed outputSchema: ${this.ajv.errorsText(listed.errors)}`,
    ).toBe(true);
    expect(
      whole(structuredContent),
      `${tool} whole output schema: ${this.ajv.errorsText(whole.errors)}`,
    ).toBe(true);
    this.checked.add(tool);
  }
}
