import { Anchor, Button, Group, Paper, Select, Tabs, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { call, errorText, when } from '../api';
import { type AuditEntry, auditColumns } from '../components/audit-trail';
import { DataTable, ErrorNote, Mono, OnceSecret, PageTitle, Status } from '../components/bits';
import { ResourceList } from '../components/resource-list';
import { useApi } from '../hooks';
import { navigate } from '../router';
import { useSession } from '../session';

interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  keyPrefix: string;
  status: string;
  createdAt: string;
  lastUsedAt: string | null;
  key?: string;
}
interface RequestError {
  method: string;
  route: string | null;
  operationId: string | null;
  status: number;
  code: string | null;
  message: string | null;
  requestId: string;
  at: string;
}

function ApiKeys() {
  const { can } = useSession();
  const [name, setName] = useState('');
  const [scope, setScope] = useState('read');
  const [issued, setIssued] = useState<ApiKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const issue = async (e: FormEvent) => {
    e.preventDefault();
    try {
      setIssued((await call<ApiKey>('POST', '/admin/api-keys', { name, scopes: [scope] })).data);
      setName('');
      setError(null);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const revoke = async (id: string) => {
    try {
      await call('POST', `/admin/api-keys/${id}/revoke`);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const writable = can('api_keys.write');
  return (
    <>
      {writable && (
        <Paper withBorder p="sm" mb="md" component="form" onSubmit={issue} aria-label="Issue an API key">
          <Group align="end" wrap="wrap">
            <TextInput
              label="Key name"
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <Select
              label="Scope"
              data={['read', 'commerce', 'admin']}
              value={scope}
              onChange={(v) => setScope(v ?? 'read')}
              allowDeselect={false}
              w={140}
            />
            <Button type="submit">Issue key</Button>
          </Group>
        </Paper>
      )}
      <ErrorNote error={error} />
      {issued?.key && <OnceSecret label={`API key ${issued.name}`} value={issued.key} />}
      <ResourceList<ApiKey>
        key={version}
        path="/admin/api-keys"
        caption="API keys"
        keyOf={(k) => k.id}
        columns={[
          { label: 'Name', render: (k) => k.name },
          { label: 'Key', render: (k) => <Mono>{k.keyPrefix}…</Mono> },
          { label: 'Scopes', render: (k) => k.scopes.join(', ') },
          { label: 'Status', render: (k) => <Status value={k.status} /> },
          { label: 'Last used', render: (k) => when(k.lastUsedAt) },
          {
            label: 'Actions',
            render: (k) =>
              writable && k.status === 'active' ? (
                <Button
                  size="xs"
                  variant="default"
                  color="red"
                  onClick={() => void revoke(k.id)}
                  aria-label={`Revoke ${k.name}`}
                >
                  Revoke
                </Button>
              ) : null,
          },
        ]}
      />
    </>
  );
}

function RecentErrors() {
  const { data, error, reload } = useApi<RequestError[]>('/admin/request-errors?limit=100');
  return (
    <>
      <Group mb="sm">
        <Text size="sm">Error responses this server instance sent to your team and keys, newest first.</Text>
        <Button size="xs" variant="default" onClick={reload}>
          Refresh
        </Button>
      </Group>
      <ErrorNote error={error} />
      <DataTable
        rows={data ?? []}
        caption="Recent errors"
        keyOf={(e) => e.requestId}
        empty="No errors recently."
        columns={[
          { label: 'When', render: (e) => when(e.at) },
          { label: 'Request', render: (e) => <Mono>{`${e.method} ${e.route ?? ''}`}</Mono> },
          { label: 'Status', render: (e) => e.status },
          { label: 'Code', render: (e) => <Mono>{e.code ?? '—'}</Mono> },
          { label: 'Message', render: (e) => e.message ?? '' },
          { label: 'Request id', render: (e) => <Mono>{e.requestId}</Mono> },
        ]}
      />
    </>
  );
}

export function DevelopersPage({ tab = 'keys' }: { tab?: string | undefined }) {
  const { can } = useSession();
  return (
    <>
      <PageTitle actions={<Anchor href="/docs">API reference (/docs)</Anchor>}>Developers</PageTitle>
      <Tabs value={tab} onChange={(v) => navigate('developers', v ?? 'keys')}>
        <Tabs.List mb="md">
          <Tabs.Tab value="keys">API keys</Tabs.Tab>
          {can('audit.read') && <Tabs.Tab value="audit">Audit log</Tabs.Tab>}
          {can('audit.read') && <Tabs.Tab value="errors">Recent errors</Tabs.Tab>}
        </Tabs.List>
      </Tabs>
      {tab === 'keys' && <ApiKeys />}
      {tab === 'audit' && (
        <ResourceList<AuditEntry>
          path="/audit-logs"
          caption="Audit log"
          keyOf={(e) => e.id}
          filters={[
            { name: 'action', label: 'Action', placeholder: 'order.' },
            { name: 'resourceType', label: 'Resource type', placeholder: 'order' },
            { name: 'resourceId', label: 'Resource id' },
          ]}
          columns={auditColumns}
        />
      )}
      {tab === 'errors' && <RecentErrors />}
    </>
  );
}
