export { fanOutFromEvents } from './fan-out.js';
