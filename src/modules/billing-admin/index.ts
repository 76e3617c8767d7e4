export { saveIntegration } from './integration.js';
export { operatorOperation } from './operations.js';
