import { Anchor, Code, Group } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { useApi } from '../hooks';
import { ActionButtons } from './actions';
import { AuditTrail } from './audit-trail';
import { ErrorNote, Loading, PageTitle } from './bits';

/**
 * One resource's page: its title, the writes its `nextActions` allow, the caller's fields and
 * sections, the raw JSON on demand, and its audit trail.
 */
export function ResourceDetail<T extends { id?: string }>({
  path,
  back,
  title,
  children,
  auditId,
  actions = true,
}: {
  path: string;
  back: { href: string; label: string };
  title: (row: T) => ReactNode;
  children: (row: T, reload: () => void) => ReactNode;
  auditId?: (row: T) => string;
  /** Off where the page offers its own buttons for the same writes. */
  actions?: boolean;
}) {
  const { answer, data, error, loading, reload } = useApi<T>(path);
  // An action's write may change what the sections below read: they are read again after one.
  const [version, setVersion] = useState(0);
  const afterAction = () => {
    reload();
    setVersion((v) => v + 1);
  };
  return (
    <>
      <Group mb="xs">
        <Anchor href={back.href}>← {back.label}</Anchor>
      </Group>
      <ErrorNote error={error} />
      {loading && !data && <Loading />}
      {data && (
        <>
          <PageTitle>{title(data)}</PageTitle>
          {actions && <ActionButtons actions={answer?.nextActions ?? []} onDone={afterAction} />}
          <div key={`sections-${version}`}>{children(data, reload)}</div>
          <details>
            <summary>Raw JSON</summary>
            <Code block>{JSON.stringify(data, null, 2)}</Code>
          </details>
          <AuditTrail key={`audit-${version}`} resourceId={auditId ? auditId(data) : (data.id ?? '')} />
        </>
      )}
    </>
  );
}
