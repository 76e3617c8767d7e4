export { saveIntegration } from './integration.js';
export { resumeOperatorCommand } from './operations.js';
