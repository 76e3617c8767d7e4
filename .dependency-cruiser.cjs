// The dependency rules of src/ (docs/architecture.md, "Layers"), checked in CI by `npm run lint:deps`.
// Layers, bottom up; nothing imports a layer above its own:
//   1 config.ts, clock.ts, core/      settings, time, errors and formats every layer shares
//     observability/                   metrics and tracing every layer records into
//   2 db/                              connections, schema, tenant scoping
//   3 billing/                         the billing-adapter boundary and the built-in engine
//   4 events/, unit-of-work/           the outbox, audit log, runUnitOfWork, intents, reconciler
//   5 modules/<area>/ (not routes)     operations, services, schemas, tables
//   6 http/                            gate, limits, idempotency, envelope, errors: the edge
//   7 modules/<area>/*routes.ts,       route files (one endpoint a file under routes/)
//     modules/<area>/routes/, mcp/
//   8 app.ts, deps.ts, main.ts, worker.ts, background.ts, server.ts, cli/, seed/
// A module is reached only through its index.ts (app.ts alone imports route files).

const TOP = '^src/(app|deps|main|worker|background|server|schema|tables)\\.ts$|^src/(cli|seed)/';
const ROUTES =
  '^src/modules/[^/]+/[a-z-]*routes[.]ts$|^src/modules/[^/]+/[a-z-]+/[a-z-]*routes[.]ts$|^src/modules/[^/]+/routes/|^src/modules/[^/]+/[a-z-]+/routes/|^src/mcp/';
const layer = (name, from, fromNot, forbidden) => ({
  name,
  severity: 'error',
  comment: `${name}: a lower layer may not import a higher one (see the header of this file)`,
  from: { path: from, ...(fromNot ? { pathNot: fromNot } : {}) },
  to: { path: forbidden },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles hide the layering and make start-up order fragile.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    layer(
      'shared-below-db',
      '^src/(config|clock)\\.ts$|^src/(core|observability)/',
      null,
      `^src/(db|billing|events|unit-of-work|modules|http|mcp)/|${TOP}`,
    ),
    layer(
      'db-below-billing',
      '^src/db/',
      null,
      `^src/(billing|events|unit-of-work|modules|http|mcp)/|${TOP}`,
    ),
    layer(
      'billing-below-unit-of-work',
      '^src/billing/',
      null,
      `^src/(events|unit-of-work|modules|http|mcp)/|${TOP}`,
    ),
    layer(
      'unit-of-work-below-modules',
      '^src/(events|unit-of-work)/',
      null,
      `^src/(modules|http|mcp)/|${TOP}`,
    ),
    layer('modules-below-http', '^src/modules/', ROUTES, `^src/(http|mcp)/|${ROUTES}|${TOP}`),
    layer('http-below-routes', '^src/http/', null, `^src/(modules|mcp)/|${TOP}`),
    layer('routes-below-app', ROUTES, null, TOP),
    {
      name: 'module-internals',
      severity: 'error',
      comment: 'Another module is reached only through its index.ts.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'module-internals-from-outside',
      severity: 'error',
      comment:
        'Outside modules/, a module is reached through its index.ts; app.ts also registers its routes, and src/tables.ts gathers the tables.',
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/app\\.ts$', '^src/tables\\.ts$'] },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'tables-gather-tables',
      severity: 'error',
      comment: 'src/tables.ts gathers every tables.ts and nothing else.',
      from: { path: '^src/tables\\.ts$' },
      to: { pathNot: '/tables\\.ts$' },
    },
    {
      name: 'app-registers-routes',
      severity: 'error',
      comment: 'app.ts imports a module index or its route files, nothing else of it.',
      from: { path: '^src/app\\.ts$' },
      to: { path: '^src/modules/[^/]+/', pathNot: [ROUTES, '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'index-exports-no-routes',
      severity: 'error',
      comment: "A module's index.ts exports services and types; app.ts registers routes.",
      from: { path: '^src/modules/[^/]+/index\\.ts$' },
      to: { path: ROUTES },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript compiler API: swc parses the sources (type imports included).
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
