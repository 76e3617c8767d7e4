import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

// A lean HTTPS webhook receiver for long runs (the soak): answers 200 and keeps only a count per
// `webhook-id` (test/support/webhook-receiver.ts keeps every request, headers and body, which
// over a 10-minute soak would grow the test process by hundreds of MB). Certificate from the test
// CA: point WEBHOOK_CA_FILE at TEST_CA_FILE.

const TLS = (name: string) => fileURLToPath(new URL(`../../fixtures/tls/${name}`, import.meta.url));

export async function startCountingReceiver() {
  const counts = new Map<string, number>();
  let total = 0;
  const server = createServer(
    { key: readFileSync(TLS('server.key')), cert: readFileSync(TLS('server.crt')) },
    (req, res) => {
      req.resume();
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
        total++;
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}/hooks`,
    /** Requests received, resends included. */
    total: () => total,
    /** Distinct event ids received. */
    distinct: () => counts.size,
    has: (id: string) => counts.has(id),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type CountingReceiver = Awaited<ReturnType<typeof startCountingReceiver>>;
