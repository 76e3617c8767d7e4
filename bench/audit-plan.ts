// Query plans of GET /api/v1/audit-logs with a million entries in one tenant (PostgreSQL).
//   DATABASE_URL=postgres://... npx tsx bench/audit-plan.ts
// Loads 1,000,000 rows for one tenant (plus 200,000 for another), ANALYZEs, then prints
// EXPLAIN ANALYZE of the page and count queries listAuditLogs runs for typical filters.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openPostgres } from '../src/db/client.js';
import { TABLE_LAYOUT } from '../src/schema.js';
import { AUDIT_ACTIONS } from '../src/unit-of-work/index.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL');
const database = openPostgres({ url });
await database.migrate(TABLE_LAYOUT);
await database.close();

const client = new pg.Client({ connectionString: url });
await client.connect();
const tenant = randomUUID();
const other = randomUUID();
const actions = `array[${AUDIT_ACTIONS.map((a) => `'${a}'`).join(',')}]`;
const load = (t: string, n: number) =>
  client.query(`
    insert into audit_logs (tenant_id, id, action, resource_type, resource_id, actor_key_id, request_id, details, created_at)
    select '${t}', gen_random_uuid(), (${actions})[1 + (i % ${AUDIT_ACTIONS.length})],
           case when i % 3 = 0 then 'order' else 'api_key' end, 'res-' || (i % 50000), null, 'req-' || i,
           null, timestamptz '2030-01-01' + (i || ' seconds')::interval
    from generate_series(1, ${n}) as i`);
const started = Date.now();
await load(tenant, 1_000_000);
await load(other, 200_000);
await client.query('analyze audit_logs');
console.log(`loaded 1,200,000 rows in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

const t = `tenant_id = '${tenant}'`;
const page = (where: string, order = 'desc') =>
  `select * from audit_logs where ${where} order by created_at ${order}, id ${order} limit 50 offset 0`;
const total = (where: string) => `select count(*) from audit_logs where ${where}`;
const cases: [string, string][] = [
  ['no filter', t],
  [
    "action ILIKE-equivalent 'ORDER.CRE' -> action in ('order.create')",
    `${t} and action in ('order.create')`,
  ],
  [
    "action 'subscription' (5 known actions)",
    `${t} and action in (${AUDIT_ACTIONS.filter((a) => a.includes('subscription'))
      .map((a) => `'${a}'`)
      .join(', ')})`,
  ],
  ['resourceType + resourceId', `${t} and resource_type = 'order' and resource_id = 'res-300'`],
  ['since/until (one day)', `${t} and created_at >= '2030-01-05' and created_at <= '2030-01-06'`],
];
for (const [name, where] of cases) {
  for (const [kind, sql] of [
    ['page', page(where)],
    ['total', total(where)],
  ] as const) {
    const { rows } = await client.query(`explain (analyze, buffers off, costs off, timing on) ${sql}`);
    const plan = rows.map((r: Record<string, string>) => r['QUERY PLAN']);
    console.log(`### ${name}: ${kind}\n${plan.join('\n')}\n`);
  }
}
await client.query(`delete from audit_logs where tenant_id in ('${tenant}', '${other}')`);
await client.end();
