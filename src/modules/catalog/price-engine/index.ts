export * from './charges.js';
export * from './discounts.js';
export * from './plan-change.js';
export * from './resolve.js';
