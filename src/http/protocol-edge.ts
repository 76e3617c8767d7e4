import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../core/errors.js';

/**
 * The edge of a route that speaks another protocol's HTTP binding (ACP, UCP): its error answer
 * and the headers it requires or echoes. Our operations, idempotency and limits stay the same;
 * only what goes over the wire is the protocol's.
 */
export interface ProtocolEdge {
  name: string;
  /** The protocol's answer for one of our errors: its status (it may differ) and body. */
  renderError(error: AppError, request: FastifyRequest): { status: number; body: unknown };
  /** Before validation and the handler: the protocol's required headers. Throw an AppError to refuse. */
  checkRequest?(request: FastifyRequest): void;
  /** Headers every answer of the protocol carries (echoes, replay marks). */
  answerHeaders?(request: FastifyRequest, reply: FastifyReply): void;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the routes of a protocol binding (src/http/protocol-edge.ts). */
    protocol?: ProtocolEdge;
  }
  interface FastifyRequest {
    /** On a protocol route, the JSON body's text as received: a request signature covers its bytes. */
    rawBody?: string;
  }
}

export const protocolOf = (request: FastifyRequest): ProtocolEdge | undefined =>
  request.routeOptions?.config?.protocol;
