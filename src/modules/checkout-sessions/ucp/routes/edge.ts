import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, notFound } from '../../../../core/errors.js';
import type { ProtocolEdge } from '../../../../http/protocol-edge.js';
import { errorAnswer } from '../messages.js';
import { profileUrlOf, UCP_AGENT_HEADER } from '../negotiation.js';

// The UCP edge of our routes (src/http/protocol-edge.ts): every error in UCP's error response
// with UCP's status (a reused Idempotency-Key is 409), the UCP-Agent header required before
// anything else, and the headers every answer carries.

const renderError = (error: AppError, request: FastifyRequest) => errorAnswer(error, request.body);

/** 401 says how to authenticate, as UCP's REST binding shows it. */
function authChallenge(reply: FastifyReply) {
  if (reply.statusCode === 401) reply.header('WWW-Authenticate', 'Bearer realm="ucp"');
}

/** The checkout and order operations under /ucp/v1. */
export const ucpEdge: ProtocolEdge = {
  name: 'ucp',
  renderError,
  checkRequest: (request: FastifyRequest) => {
    profileUrlOf(request.headers[UCP_AGENT_HEADER]);
  },
  answerHeaders: (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    authChallenge(reply);
  },
};

export const PROFILE_MAX_AGE_S = 300;

/**
 * The business profile: cacheable by anyone for 5 minutes when served (UCP requires `public` and
 * a max-age of at least 60 s), never an error.
 */
export const ucpProfileEdge: ProtocolEdge = {
  name: 'ucp-profile',
  renderError,
  answerHeaders: (_request, reply) => {
    reply.header(
      'Cache-Control',
      reply.statusCode === 200 ? `public, max-age=${PROFILE_MAX_AGE_S}` : 'no-store',
    );
    authChallenge(reply);
  },
};

/** Sends a body as it is (UCP's 200 error responses: no resource, nothing for a schema to shape). */
export const sendAsIs = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));

/** The 404 of an id that is not a checkout session of the caller's tenant. */
export const sessionNotFound = () => notFound('Checkout session');
