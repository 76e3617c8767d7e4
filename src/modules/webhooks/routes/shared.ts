import { WEBHOOK_DELIVERIES } from '../../../core/agent-guide.js';
import { iso } from '../../../core/format.js';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../../events/event-types.js';
import type { RequestContext } from '../../../http/context.js';
import { type ActionSpec, envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { CreatedWebhook, RotatedSecret } from '../operations.js';
import { SECRET_OVERLAP_HOURS } from '../schemas.js';
import type { WebhookApi } from '../service.js';

export const TAGS = ['Webhooks'];

export const EVENT_TYPE_LIST = EVENT_TYPE_NAMES.map((type) => ({ type, description: EVENT_TYPES[type] }));

export function webhookActions(id: string): ActionSpec[] {
  return [
    next('self', 'getWebhook', { id }),
    next('update', 'updateWebhook', { id }),
    next('delete', 'deleteWebhook', { id }),
    next('rotateSecret', 'rotateWebhookSecret', { id }),
    next('deliveries', 'listWebhookDeliveries', { id }),
    next('test', 'testWebhook', { id }),
    next('list', 'listWebhooks'),
  ];
}

export const createdResponse = ({ webhook, secret }: CreatedWebhook, ctx: RequestContext): Presented => ({
  status: 201,
  body: envelope(ctx, { ...webhook, secret }, webhookActions(webhook.id)),
});
export const webhookResponse = (webhook: WebhookApi, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(ctx, webhook, webhookActions(webhook.id)),
});
export const rotatedResponse = (rotated: RotatedSecret, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(
    ctx,
    {
      id: rotated.id,
      secret: rotated.secret,
      overlapHours: SECRET_OVERLAP_HOURS,
      previousSecretExpiresAt: iso(rotated.previousSecretExpiresAt),
    },
    webhookActions(rotated.id),
  ),
});
export const noContent = (): Presented => ({ status: 204, body: undefined });

export const SIGNING = WEBHOOK_DELIVERIES.text;
