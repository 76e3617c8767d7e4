import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const TLS = (name: string) => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));
/** The test CA that signed the receiver's certificate: point WEBHOOK_CA_FILE here. */
export const TEST_CA_FILE = TLS('ca.crt');

export interface Receipt {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/**
 * How the receiver answers the nth request (from 1): status, headers, body (raw bytes allowed;
 * `answer <status>` when absent), or `hang` to never answer.
 */
export type Responder = (
  n: number,
  receipt: Receipt,
) => { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

/**
 * A real HTTPS webhook receiver on localhost, with a certificate from the test CA. Records every
 * request; answers 200 unless told otherwise.
 */
export async function startReceiver(responder: Responder = () => ({ status: 200 })) {
  const receipts: Receipt[] = [];
  const hanging = new Set<ServerResponse>();
  let respond = responder;
  const server = createServer(
    { key: readFileSync(TLS('server.key')), cert: readFileSync(TLS('server.crt')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const receipt = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        receipts.push(receipt);
        const answer = respond(receipts.length, receipt);
        if (answer === 'hang') {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? `answer ${answer.status}`);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}/hooks`,
    port,
    receipts,
    /** Requests held open now (answered `hang`, connection not yet closed by the sender). */
    get hangingNow(): number {
      return hanging.size;
    },
    setResponder(next: Responder) {
      respond = next;
    },
    /** Receipts grouped by `webhook-id` (the event id). */
    countsById(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const r of receipts) {
        const id = String(r.headers['webhook-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
