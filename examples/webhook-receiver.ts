/**
 * A minimal webhook receiver: verifies every delivery's signature over the raw body before
 * trusting it, checks the tenant, de-duplicates by event id, and answers 2xx quickly.
 *
 *   WEBHOOK_SECRETS=whsec_current[,whsec_previous] TENANT_ID=<tenant uuid> PORT=3001 \
 *     npm run example:webhooks
 *
 * Verification is the Standard Webhooks scheme the service signs every delivery with
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`), through the `standardwebhooks`
 * library: it also refuses a delivery whose timestamp is more than 5 minutes off (a replay).
 * During a secret rotation, list both secrets: a delivery passes when any of them verifies it.
 *
 * For local development, `npm run cli -- webhooks listen --forward-to http://localhost:3001/hook`
 * forwards the tenant's deliveries here unchanged; give this receiver the signing secret that
 * listen prints.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** A delivery's body (the native format): the event, its id stable across retries. */
export interface ReceivedEvent {
  id?: string;
  event: string;
  timestamp: string;
  tenantId: string;
  data: unknown;
}

type Refusal = 'bad_signature' | 'wrong_tenant' | 'bad_body';

/** The event if one of the secrets verifies the delivery; otherwise why not. */
function verify(
  secrets: Webhook[],
  body: Buffer,
  headers: IncomingMessage['headers'],
): ReceivedEvent | Refusal {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') flat[name] = value;
  for (const secret of secrets) {
    try {
      const event = secret.verify(body, flat) as ReceivedEvent | undefined;
      return typeof event?.event === 'string' ? event : 'bad_body';
    } catch (err) {
      if (err instanceof SyntaxError) return 'bad_body';
      if (!(err instanceof WebhookVerificationError)) throw err;
    }
  }
  return 'bad_signature';
}

export function createWebhookReceiver(options: {
  secrets: string[];
  tenantId: string;
  onEvent: (event: ReceivedEvent) => void;
}): Server {
  // The key is the secret's base64 part; Node's decoder also reads the base64url of older secrets.
  const verifiers = options.secrets.map(
    (s) => new Webhook(Buffer.from(s.replace(/^whsec_/, ''), 'base64'), { format: 'raw' }),
  );
  const seen = new Set<string>();
  return createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const rawBody = await readBody(req);
    const event = verify(verifiers, rawBody, req.headers);
    const refusal =
      typeof event === 'string' ? event : event.tenantId !== options.tenantId ? 'wrong_tenant' : null;
    if (refusal !== null || typeof event === 'string') {
      res.writeHead(refusal === 'bad_body' ? 400 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: refusal }));
      return;
    }
    // Deliveries may repeat: handle each event id once.
    if (!event.id || !seen.has(event.id)) {
      if (event.id) seen.add(event.id);
      options.onEvent(event);
    }
    res.writeHead(204).end();
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
  const port = Number(process.env.PORT ?? 3001);
  createWebhookReceiver({
    secrets,
    tenantId,
    onEvent: (event) => console.log(`${event.event} ${event.id ?? ''}`, JSON.stringify(event.data)),
  }).listen(port, () => console.log(`webhook receiver on http://127.0.0.1:${port}`));
}
