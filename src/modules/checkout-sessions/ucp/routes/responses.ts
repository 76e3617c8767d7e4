import { Answer, ErrorResponse } from '../schemas/common.js';
import { errorExample } from '../schemas/examples.js';

export const TAGS = ['UCP'];

/** UCP's error response, for the statuses a route answers with one. */
export function errorAnswers(...statuses: number[]) {
  const schema = Answer(ErrorResponse, 'UCP error response (`ucp.status: "error"`).', errorExample);
  return Object.fromEntries(statuses.map((s) => [s, schema]));
}

/** What every checkout call may refuse before its operation: the key, the platform, the request. */
export const CALL_ERRORS = [400, 401, 403, 422, 424, 429] as const;

export const NEGOTIATION =
  'Every call names the platform profile in `UCP-Agent: profile="<https url>"`; it is fetched (cached ' +
  'by its Cache-Control, 60 s to 1 h) and must declare protocol version 2026-04-08 (else 422 ' +
  '`version_unsupported`): 400 `invalid_profile_url` (missing, malformed, not https or not public), 424 ' +
  '`profile_unreachable`, 422 `profile_malformed`. Without `dev.ucp.shopping.checkout` in common the ' +
  'answer is 200 with `ucp.status: "error"` and `capabilities_incompatible`, and nothing is done. ';
