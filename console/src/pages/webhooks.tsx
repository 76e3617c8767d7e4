import { Button, Group, MultiSelect, Paper, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { call, errorText, when } from '../api';
import {
  DataTable,
  ErrorNote,
  Fields,
  LinkTo,
  Mono,
  OnceSecret,
  PageTitle,
  Status,
} from '../components/bits';
import { ResourceDetail } from '../components/detail';
import { ResourceList } from '../components/resource-list';
import { useApi, useInterval } from '../hooks';
import { href, navigate } from '../router';
import { useSession } from '../session';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  format: string;
  isActive: boolean;
  lastDeliveryAt: string | null;
  recentFailureCount: number;
  lastDeliveryStatus: string | null;
  createdAt: string;
  secret?: string;
}
interface Delivery {
  id: string;
  eventType: string;
  status: string;
  attemptCount: number;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
  attempts?: {
    attempt: number;
    attemptedAt: string;
    responseStatus: number | null;
    durationMs: number;
    responseBody: string | null;
    error: string | null;
  }[];
}

const SETTLED = ['succeeded', 'dead_letter'];

function CreateWebhook({ onCreated }: { onCreated: (w: Webhook) => void }) {
  const { data: types } = useApi<{ type: string }[]>('/webhooks/event-types?limit=200');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['*']);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      onCreated((await call<Webhook>('POST', '/webhooks', { url, events })).data);
      setUrl('');
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Paper withBorder p="sm" mb="md" component="form" onSubmit={submit} aria-label="Add an endpoint">
      <Group align="end" wrap="wrap">
        <TextInput
          label="Endpoint URL"
          type="url"
          required
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          w={360}
        />
        <MultiSelect
          label="Events"
          data={['*', ...(types ?? []).map((t) => t.type)]}
          value={events}
          onChange={setEvents}
          searchable
          w={320}
        />
        <Button type="submit">Add endpoint</Button>
      </Group>
      <ErrorNote error={error} />
    </Paper>
  );
}

function DeliveryDetail({ webhookId, id }: { webhookId: string; id: string }) {
  const { can } = useSession();
  const { data, error, reload } = useApi<Delivery>(`/webhooks/${webhookId}/deliveries/${id}`);
  useInterval(reload, 1000, data !== null && !SETTLED.includes(data.status));
  const [actionError, setActionError] = useState<string | null>(null);
  const replay = async () => {
    try {
      await call('POST', `/webhooks/${webhookId}/deliveries/${id}/replay`);
      setActionError(null);
      reload();
    } catch (e) {
      setActionError(errorText(e));
    }
  };
  return (
    <>
      <LinkTo to={href('webhooks', webhookId)}>← Endpoint</LinkTo>
      <PageTitle actions={can('webhooks.write') && <Button onClick={() => void replay()}>Replay</Button>}>
        Delivery of {data?.eventType ?? '…'}
      </PageTitle>
      <ErrorNote error={error ?? actionError} />
      {data && (
        <>
          <Fields
            items={[
              ['Status', <Status key="s" value={data.status} />],
              ['Attempts', data.attemptCount],
              ['Last response', data.lastResponseStatus ?? '—'],
              ['Next attempt', when(data.nextAttemptAt)],
              ['Created', when(data.createdAt)],
            ]}
          />
          <DataTable
            rows={data.attempts ?? []}
            caption="Attempts"
            keyOf={(a) => String(a.attempt)}
            empty="Not attempted yet."
            columns={[
              { label: 'Attempt', render: (a) => a.attempt },
              { label: 'When', render: (a) => when(a.attemptedAt) },
              { label: 'Status', render: (a) => a.responseStatus ?? '—' },
              { label: 'Duration', render: (a) => `${a.durationMs} ms` },
              {
                label: 'Response',
                render: (a) => <Mono>{(a.error ?? a.responseBody ?? '').slice(0, 200)}</Mono>,
              },
            ]}
          />
        </>
      )}
    </>
  );
}

function WebhookButtons({ hook, reload }: { hook: Webhook; reload: () => void }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const run = async (what: () => Promise<void>) => {
    try {
      await what();
      setError(null);
      reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <>
      <Group mb="md" role="group" aria-label="Endpoint actions">
        <Button
          onClick={() =>
            void run(async () => {
              await call('POST', `/webhooks/${hook.id}/test`);
              setNote('Test event sent: it appears in the delivery log below.');
            })
          }
        >
          Send test event
        </Button>
        <Button
          variant="default"
          onClick={() =>
            void run(async () =>
              setSecret(
                (await call<{ secret: string }>('POST', `/webhooks/${hook.id}/rotate-secret`)).data.secret,
              ),
            )
          }
        >
          Rotate secret
        </Button>
        <Button
          variant="default"
          onClick={() =>
            void run(
              async () => void (await call('PATCH', `/webhooks/${hook.id}`, { isActive: !hook.isActive })),
            )
          }
        >
          {hook.isActive ? 'Disable' : 'Enable'}
        </Button>
      </Group>
      {note && <output aria-live="polite">{note}</output>}
      <ErrorNote error={error} />
      {secret && <OnceSecret label="New signing secret" value={secret} />}
    </>
  );
}

function WebhookDetail({ id }: { id: string }) {
  const { can } = useSession();
  const [version, setVersion] = useState(0);
  return (
    <ResourceDetail<Webhook>
      path={`/webhooks/${id}`}
      back={{ href: href('webhooks'), label: 'Webhooks' }}
      title={(w) => w.url}
      actions={false}
    >
      {(w, reload) => (
        <>
          {can('webhooks.write') && (
            <WebhookButtons
              hook={w}
              reload={() => {
                reload();
                setVersion((v) => v + 1);
              }}
            />
          )}
          <Fields
            items={[
              ['Status', <Status key="s" value={w.isActive} />],
              ['Events', w.events.join(', ')],
              ['Format', w.format],
              ['Last delivery', `${when(w.lastDeliveryAt)} (${w.lastDeliveryStatus ?? 'none'})`],
              ['Recent failures', w.recentFailureCount],
            ]}
          />
          <ResourceList<Delivery>
            key={version}
            path={`/webhooks/${w.id}/deliveries`}
            caption="Delivery log"
            keyOf={(d) => d.id}
            refreshWhile={(d) => !SETTLED.includes(d.status)}
            filters={[
              {
                name: 'status',
                label: 'Delivery status',
                options: ['pending', 'succeeded', 'failed', 'dead_letter'],
              },
            ]}
            columns={[
              {
                label: 'Event',
                render: (d) => <LinkTo to={href('webhooks', w.id, 'deliveries', d.id)}>{d.eventType}</LinkTo>,
              },
              { label: 'Status', render: (d) => <Status value={d.status} /> },
              { label: 'Attempts', render: (d) => d.attemptCount },
              { label: 'Last response', render: (d) => d.lastResponseStatus ?? '—' },
              { label: 'Created', render: (d) => when(d.createdAt) },
            ]}
          />
        </>
      )}
    </ResourceDetail>
  );
}

export function WebhooksPage({
  id,
  deliveryId,
}: {
  id?: string | undefined;
  deliveryId?: string | undefined;
}) {
  const { can } = useSession();
  const [created, setCreated] = useState<Webhook | null>(null);
  if (id && deliveryId) return <DeliveryDetail webhookId={id} id={deliveryId} />;
  if (id) return <WebhookDetail id={id} />;
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      {can('webhooks.write') && <CreateWebhook onCreated={setCreated} />}
      {created?.secret && (
        <>
          <OnceSecret label={`Signing secret of ${created.url}`} value={created.secret} />
          <Button variant="subtle" my="sm" onClick={() => navigate('webhooks', created.id)}>
            Open the new endpoint
          </Button>
        </>
      )}
      <ResourceList<Webhook>
        key={created?.id ?? 'list'}
        path="/webhooks"
        caption="Webhook endpoints"
        keyOf={(w) => w.id}
        columns={[
          { label: 'URL', render: (w) => <LinkTo to={href('webhooks', w.id)}>{w.url}</LinkTo> },
          { label: 'Status', render: (w) => <Status value={w.isActive} /> },
          { label: 'Events', render: (w) => w.events.join(', ') },
          { label: 'Recent failures', render: (w) => w.recentFailureCount },
          { label: 'Last delivery', render: (w) => when(w.lastDeliveryAt) },
        ]}
      />
    </>
  );
}
