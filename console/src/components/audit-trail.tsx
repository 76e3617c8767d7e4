import { Title } from '@mantine/core';
import { query, when } from '../api';
import { useApi } from '../hooks';
import { useSession } from '../session';
import { DataTable, ErrorNote, Mono } from './bits';

interface AuditEntry {
  id: string;
  action: string;
  resourceType: string;
  resourceId: string;
  actor: { keyId: string | null; userId?: string | null };
  requestId: string | null;
  createdAt: string;
}

export const auditColumns = [
  { label: 'When', render: (e: AuditEntry) => when(e.createdAt) },
  { label: 'Action', render: (e: AuditEntry) => <Mono>{e.action}</Mono> },
  { label: 'Resource', render: (e: AuditEntry) => `${e.resourceType} ${e.resourceId.slice(0, 8)}` },
  {
    label: 'Actor',
    render: (e: AuditEntry) =>
      e.actor.userId
        ? `user ${e.actor.userId.slice(0, 8)}`
        : e.actor.keyId
          ? `key ${e.actor.keyId.slice(0, 8)}`
          : 'system',
  },
  { label: 'Request', render: (e: AuditEntry) => <Mono>{e.requestId ?? '—'}</Mono> },
];

export type { AuditEntry };

/** The audit log entries of one resource, newest first (needs the `audit.read` permission). */
export function AuditTrail({ resourceId }: { resourceId: string }) {
  const { can } = useSession();
  const allowed = can('audit.read');
  const { data, error } = useApi<AuditEntry[]>(
    allowed ? `/audit-logs${query({ resourceId, limit: 50 })}` : null,
  );
  if (!allowed) return null;
  return (
    <section aria-labelledby="audit-trail">
      <Title order={2} size="h4" id="audit-trail" mt="lg" mb="sm">
        Audit trail
      </Title>
      <ErrorNote error={error} />
      <DataTable
        rows={data ?? []}
        columns={auditColumns}
        caption="Audit trail"
        keyOf={(e) => e.id}
        empty="No recorded changes."
      />
    </section>
  );
}
