export { displayPrefix, parseKeyEnvironment } from './key-material.js';
export { ApiKeyResolver } from './key-resolver.js';
export { type RevocationBus, redisRevocationBus } from './revocation-bus.js';
export { RateTierSchema } from './schemas.js';
export { type ApiKey, issueApiKey, listApiKeys, revokeApiKey } from './service.js';
