// A local HTTPS webhook receiver for bench/scenarios/webhook-delivery.ts, in its own process:
// answers 204 at once and keeps, per delivery, the id of the resource in its body and the wall
// clock time it arrived. The parent asks for them over IPC.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const tls = (name: string) => readFileSync(new URL(`../test/fixtures/tls/${name}`, import.meta.url));
const receipts: [string, number][] = [];

const server = createServer({ key: tls('server.key'), cert: tls('server.crt') }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    receipts.push([String(body.data?.id ?? body.id), at]);
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

process.on('message', (message: { cmd: string }) => {
  if (message.cmd === 'count') process.send?.({ count: receipts.length });
  if (message.cmd === 'receipts') process.send?.({ receipts });
  if (message.cmd === 'reset') receipts.length = 0;
});
