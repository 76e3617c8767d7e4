// The MCP conformance suite connects without credentials, and /mcp answers only a request with an
// API key. This proxy adds one header, `Authorization: Bearer $MCP_API_KEY`, to each request and
// passes everything else through untouched both ways (method, path, Host, Origin, the body, the
// status, the headers and streamed responses), so what the suite checks is our server's answer.
//
// Usage: MCP_API_KEY=... MCP_TARGET=http://127.0.0.1:3997 MCP_PROXY_PORT=3996 node scripts/mcp-conformance-proxy.mjs
import http from 'node:http';

const target = new URL(process.env.MCP_TARGET ?? '');
const key = process.env.MCP_API_KEY;
const port = Number(process.env.MCP_PROXY_PORT);
if (!key || !port) throw new Error('MCP_API_KEY, MCP_TARGET and MCP_PROXY_PORT are required');

const server = http.createServer((incoming, outgoing) => {
  const upstream = http.request(
    {
      host: target.hostname,
      port: target.port,
      method: incoming.method,
      path: incoming.url,
      // Host and Origin as the suite sent them: the DNS-rebinding scenario sets both.
      headers: { ...incoming.headers, authorization: `Bearer ${key}` },
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  upstream.on('error', (error) => {
    outgoing.writeHead(502, { 'content-type': 'text/plain' });
    outgoing.end(`proxy: ${error.message}`);
  });
  outgoing.on('close', () => upstream.destroy());
  incoming.pipe(upstream);
});
server.listen(port, '127.0.0.1', () => console.log(`proxy on http://127.0.0.1:${port} -> ${target.origin}`));
