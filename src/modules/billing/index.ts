export { saveIntegration } from './integration.js';
