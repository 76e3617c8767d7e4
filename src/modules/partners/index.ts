export { partnerCrud } from './crud.js';
export { WarningSchema } from './schemas.js';
export { partnerKnown, partnerWarnings, requireKnownPartner, type Warning } from './service.js';
export { partners } from './tables.js';
