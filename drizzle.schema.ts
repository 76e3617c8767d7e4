// Every table of every module, for drizzle-kit (npm run db:generate).
export * from './src/tables.js';
