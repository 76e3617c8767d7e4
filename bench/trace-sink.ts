// A local OTLP/HTTP receiver for bench/scenarios/observability.ts, in its own process as a
// collector is: answers 200 to every export and counts them. The parent asks over IPC.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let requests = 0;
let bytes = 0;
const server = createServer((req, res) => {
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  req.on('end', () => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

process.on('message', (message: { cmd: string }) => {
  if (message.cmd === 'received') process.send?.({ received: { requests, bytes } });
});
