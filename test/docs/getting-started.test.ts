import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCommerceClient } from '@commerce-agent/client';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { type DemoSeed, seedDemoIfEmpty } from '../../src/seed/demo.js';
import {
  createScratchDatabase,
  ownPgliteDatabase,
  startApp,
  type TestApp,
  usingPostgres,
} from '../harness.js';
import { curlCommand, normalise, renderDoc, renderScript, type StepRun } from './getting-started/render.js';
import { type Json, SETUP_TS, STEPS, valueAt } from './getting-started/steps.js';

// docs/getting-started.md (and examples/getting-started.ts, its TypeScript steps as one script) is
// generated from the steps in test/docs/getting-started/steps.ts, each
// run here against the server on a fresh demo tenant (as `npm start` makes it): the curl commands
// as printed (through bash and curl when the machine has them, else the same request with fetch),
// and, on a second fresh demo tenant, the TypeScript snippets as printed (type annotations
// stripped). Both runs must give the same answers once ids and timestamps are replaced, and the
// document must be what they render: UPDATE_GETTING_STARTED=1 (or vitest -u) rewrites it.

const DOC = path.resolve(import.meta.dirname, '../../docs/getting-started.md');
const SCRIPT = path.resolve(import.meta.dirname, '../../examples/getting-started.ts');
const run = promisify(execFile);

interface Demo {
  t: TestApp;
  seed: DemoSeed;
  base: string;
  close(): Promise<void>;
}

/** A server on its own empty database, seeded with the demo tenant as the first start does. */
async function demoServer(): Promise<Demo> {
  let database: Database;
  let drop = async () => {};
  if (usingPostgres) {
    const scratch = await createScratchDatabase();
    database = scratch.database;
    drop = scratch.drop;
  } else {
    database = await ownPgliteDatabase();
    drop = () => database.close();
  }
  // Webhook targets are not resolved: the machine running the tests may have no DNS. The answer
  // to registering https://example.com/webhooks is the same either way.
  const t = await startApp({ database, config: { webhookAllowPrivateTargets: true } });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'getting-started-'));
  const seed = await seedDemoIfEmpty(t.deps.db, 'sandbox', dataDir);
  if (!seed) throw new Error('the database was not empty');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    t,
    seed,
    base: `http://127.0.0.1:${address.port}`,
    async close() {
      await t.app.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const hasCurl = await run('curl', ['--version']).then(
  () => true,
  () => false,
);

/** The step's command as printed, with its status code appended to the output. */
async function viaCurl(command: string, env: Record<string, string>): Promise<StepRun> {
  const withStatus = command.replace(/^curl -s /, `curl -s -w '\\n%{http_code}' `);
  const { stdout } = await run('bash', ['-c', withStatus], { env: { PATH: process.env.PATH ?? '', ...env } });
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
}

/** The same request without curl: the shell variables expanded by hand. */
async function viaFetch(step: (typeof STEPS)[number], env: Record<string, string>): Promise<StepRun> {
  const expand = (text: string) => text.replace(/\$([A-Z_]+)/g, (_, name: string) => env[name] ?? '');
  const res = await fetch(`${env.BASE}${expand(step.path)}`, {
    method: step.method,
    headers: {
      authorization: `Bearer ${env[step.key]}`,
      ...(step.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(step.body ? { body: expand(step.body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** Every step with curl, each step's saved values feeding the next. */
async function curlRun(demo: Demo) {
  const env: Record<string, string> = {
    BASE: `${demo.base}/api/v1`,
    KEY: demo.seed.keys.commerce,
    ADMIN_KEY: demo.seed.keys.admin,
  };
  const vars: Record<string, string | number> = {};
  const runs: StepRun[] = [];
  for (const step of STEPS) {
    const result = hasCurl ? await viaCurl(curlCommand(step), env) : await viaFetch(step, env);
    expect(result.status, `${step.title}: ${JSON.stringify(result.body)}`).toBe(step.status);
    for (const [name, at] of Object.entries(step.sets ?? {})) {
      vars[name] = valueAt(result.body, at);
      env[name] = String(vars[name]);
    }
    runs.push(result);
  }
  return { runs, vars };
}

/** The setup and every snippet as one script, run with the client against the server. */
async function typescriptRun(demo: Demo) {
  const bodies: Json[] = [];
  const record = (i: number, body: Json) => {
    bodies[i] = body;
  };
  const snippets = STEPS.map((step, i) => `${step.ts}\n__record(${i}, ${step.tsResult});`).join('\n');
  const setup = SETUP_TS.replace(/^import .*\n/m, '');
  const { code } = await transform(`async function __main() {\n${setup}\n${snippets}\n}`, { loader: 'ts' });
  const env = { BASE_URL: demo.base, KEY: demo.seed.keys.commerce, ADMIN_KEY: demo.seed.keys.admin };
  const script = new Function('createCommerceClient', 'process', '__record', `${code}\nreturn __main();`);
  await script(createCommerceClient, { env }, record);
  const vars: Record<string, string | number> = {};
  for (const [i, step] of STEPS.entries())
    for (const [name, at] of Object.entries(step.sets ?? {})) vars[name] = valueAt(bodies[i], at);
  return { bodies, vars };
}

let curlDemo: Demo;
let tsDemo: Demo;
beforeAll(async () => {
  [curlDemo, tsDemo] = await Promise.all([demoServer(), demoServer()]);
});
afterAll(async () => {
  await curlDemo?.close();
  await tsDemo?.close();
});

describe('docs/getting-started.md', () => {
  it('is what the server answers to each step, with curl and with the TypeScript client', async () => {
    const curl = await curlRun(curlDemo);
    // The cart step is what the search result offers: its createCart action, the account added.
    const searched = curl.runs[STEPS.findIndex((s) => s.path.startsWith('/catalog/search'))]?.body;
    expect(searched.nextActions.find((a: Json) => a.rel === 'createCart').arguments).toEqual({
      currency: 'USD',
      items: [{ productId: curl.vars.WORKSHOP, quantity: 1 }],
    });
    const ts = await typescriptRun(tsDemo);
    for (const [i, step] of STEPS.entries()) {
      const shown = (body: Json, vars: Record<string, string | number>) => normalise(step.show(body), vars);
      expect(shown(ts.bodies[i], ts.vars), step.title).toBe(shown(curl.runs[i]?.body, curl.vars));
    }
    const doc = renderDoc(curl.runs, curl.vars);
    const script = renderScript();
    if (process.env.UPDATE_GETTING_STARTED) {
      fs.writeFileSync(DOC, doc);
      fs.writeFileSync(SCRIPT, script);
    }
    await expect(doc).toMatchFileSnapshot(DOC);
    // The snippets together, type-checked by `tsc --noEmit -p .` with the rest of the project.
    await expect(script).toMatchFileSnapshot(SCRIPT);
    // Two whole walkthroughs against two demo servers: about 10-20 s alone, more beside a busy
    // suite on two cores (it once took over 30 s there).
  }, 120_000);
});
