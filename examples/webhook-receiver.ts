/**
 * A minimal webhook receiver: verifies every delivery's signature (SPEC.md section 6) over the raw
 * body before trusting it, checks the tenant, and answers 2xx quickly.
 *
 *   WEBHOOK_SECRETS=whsec_current[,whsec_previous] TENANT_ID=<tenant uuid> PORT=4000 \
 *     npm run example:webhooks
 *
 * During a secret rotation, list both secrets: a delivery passes when any signature matches.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@commerce-agent/client';

export function createWebhookReceiver(options: {
  secrets: string[];
  tenantId: string;
  onEvent: (event: WebhookEvent) => void;
}): Server {
  const seen = new Set<string>();
  return createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const rawBody = await readBody(req);
    try {
      const event = verifyWebhook(rawBody, req.headers, options.secrets, { tenantId: options.tenantId });
      // Deliveries may repeat: handle each event id once.
      if (!event.id || !seen.has(event.id)) {
        if (event.id) seen.add(event.id);
        options.onEvent(event);
      }
      res.writeHead(204).end();
    } catch (err) {
      const reason = err instanceof WebhookVerificationError ? err.reason : 'error';
      res.writeHead(reason === 'bad_body' ? 400 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: reason }));
    }
  });
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secrets = (process.env.WEBHOOK_SECRETS ?? '').split(',').filter(Boolean);
  const tenantId = process.env.TENANT_ID ?? '';
  if (!secrets.length || !tenantId) {
    console.error('Set WEBHOOK_SECRETS (comma-separated) and TENANT_ID');
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 4000);
  createWebhookReceiver({
    secrets,
    tenantId,
    onEvent: (event) => console.log(`${event.event} ${event.timestamp}`, JSON.stringify(event.data)),
  }).listen(port, () => console.log(`webhook receiver on http://127.0.0.1:${port}`));
}
