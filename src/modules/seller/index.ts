export {
  contentDigest,
  type OutgoingRequest,
  type SellerRequestSigner,
  SIGNATURE_ALGORITHM,
  sellerRequestSigner,
} from './message-signatures.js';
export { getSellerProfile, orderPermalinkUrl, type SellerProfile } from './service.js';
export {
  RETIRED_KEY_GRACE_MS,
  rotateSellerSigningKey,
  type SellerPublicJwk,
  type SellerSigningKey,
  type SigningKeyDeps,
  sellerSigningKeys,
} from './signing-keys.js';
