import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { systemContext } from '../core/context.js';
import { AppError } from '../core/errors.js';
import type { Queryable } from '../db/client.js';
import { compileBodyValidator, validationDetails } from '../http/validation.js';
import { fanOutFromEvents } from '../modules/webhooks/index.js';
import type { AnyCrudSpec } from '../unit-of-work/index.js';
import { mintedKey, runUnitOfWork } from '../unit-of-work/index.js';
import { SEED_SPECS } from './specs.js';

/** A seed file that cannot be loaded; each problem names its place in the file. */
export class SeedError extends Error {
  constructor(readonly problems: string[]) {
    super(`The seed file has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
    this.name = 'SeedError';
  }
}

export interface SeedReport {
  created: Record<string, number>;
  updated: Record<string, number>;
}

/** `PriceRules` -> `priceRules`: the section of a seed file a resource is listed under. */
const sectionOf = (spec: AnyCrudSpec) => spec.plural.charAt(0).toLowerCase() + spec.plural.slice(1);

export function readSeedFile(file: string): unknown {
  const text = fs.readFileSync(file, 'utf8');
  const ext = path.extname(file).toLowerCase();
  try {
    return ext === '.json' ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    throw new SeedError([
      `${path.basename(file)}: not valid ${ext === '.json' ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    ]);
  }
}

function checkShape(
  doc: unknown,
  specs: readonly AnyCrudSpec[],
): Map<AnyCrudSpec, Record<string, unknown>[]> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new SeedError(['the file must hold an object of sections']);
  const known = new Map(specs.map((s) => [sectionOf(s), s]));
  const problems: string[] = [];
  const sections = new Map<AnyCrudSpec, Record<string, unknown>[]>();
  for (const [key, items] of Object.entries(doc)) {
    const spec = known.get(key);
    if (!spec) {
      problems.push(`${key}: not a known section (known: ${[...known.keys()].join(', ')})`);
      continue;
    }
    if (!Array.isArray(items)) {
      problems.push(`${key}: must be a list`);
      continue;
    }
    const validate = compileBodyValidator(spec.createBody);
    items.forEach((item, i) => {
      if (!validate(item)) {
        for (const d of validationDetails('body', validate.errors ?? []))
          problems.push(`${key}[${i}].${d.message}`);
      }
    });
    sections.set(spec, items);
  }
  if (problems.length > 0) throw new SeedError(problems);
  return sections;
}

/** The fields of `item` the update schema accepts (an upsert updates what it may). */
function updatable(spec: AnyCrudSpec, item: Record<string, unknown>): Record<string, unknown> {
  const allowed = Object.keys((spec.updateBody as { properties?: object }).properties ?? {});
  return Object.fromEntries(Object.entries(item).filter(([k]) => allowed.includes(k)));
}

async function upsert(
  tx: Queryable,
  tenantId: string,
  spec: AnyCrudSpec,
  item: Record<string, unknown>,
  now: Date,
) {
  const id = typeof item.id === 'string' ? item.id : undefined;
  const existing = id ? await spec.service.get(tx, tenantId, id) : undefined;
  if (existing && id) {
    await spec.service.update(tx, tenantId, id, updatable(spec, item), now);
    return { id, action: spec.audit.update, created: false };
  }
  const created = await spec.service.create(tx, tenantId, item, now);
  return { id: created.id, action: spec.audit.create, created: true };
}

/**
 * Loads a catalog into a tenant in ONE unit of work: every item is validated against the same
 * schema and rules as the admin API; an item whose `id` exists is updated, others are created.
 * Sections load in dependency order (products before the rules that refer to them).
 */
export async function seedCatalog(
  db: Queryable,
  tenantId: string,
  doc: unknown,
  specs: readonly AnyCrudSpec[] = SEED_SPECS,
  now: Date = new Date(),
): Promise<SeedReport> {
  const sections = checkShape(doc, specs);
  const report: SeedReport = { created: {}, updated: {} };
  // One unit of work for the whole file: all of it or nothing, each item with its audit entry.
  const deps = { db, clock: { now: () => now }, fanOut: fanOutFromEvents };
  await runUnitOfWork(deps, systemContext(tenantId, 'seed'), mintedKey(), async (u) => {
    for (const spec of specs) {
      const key = sectionOf(spec);
      const items = sections.get(spec) ?? [];
      for (const [i, item] of items.entries()) {
        try {
          const { id, action, created } = await upsert(u.tx, tenantId, spec, item, now);
          const counter = created ? report.created : report.updated;
          counter[key] = (counter[key] ?? 0) + 1;
          await u.audit({ action, resourceType: spec.audit.resourceType, resourceId: id });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          const details = err.details?.map((d) => `${key}[${i}].${d.message}`) ?? [
            `${key}[${i}]: ${err.message}`,
          ];
          throw new SeedError(details);
        }
      }
    }
  });
  return report;
}
