export { PROVIDERS, type ProviderEvent, type ProviderName } from './schemas.js';
export {
  SIGNATURE_HEADER,
  signatureHeader,
  TIMESTAMP_TOLERANCE_SECONDS,
  verifySignature,
} from './signature.js';
