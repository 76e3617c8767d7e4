import { Button, Title } from '@mantine/core';
import { useState } from 'react';
import { call, errorText, query, when } from '../api';
import { ErrorNote, Status } from '../components/bits';
import { ResourceList } from '../components/resource-list';
import type { ContentEntry } from './content-form';

interface ContentVersion {
  version: number;
  title: string;
  body: string;
  status: string;
  createdAt: string;
}

const excerpt = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

/**
 * Every version of an entry, newest first. Restoring one makes its title and body the entry's
 * next version (the status stays: the API's restoreContentVersion).
 */
export function ContentVersions({
  entry,
  editable,
  onRestored,
}: {
  entry: ContentEntry;
  editable: boolean;
  onRestored: (entry: ContentEntry, from: number) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const restore = async (version: number) => {
    setBusy(version);
    setError(null);
    try {
      const path = `/admin/content/${encodeURIComponent(entry.key)}/versions/${version}/restore`;
      const answer = await call<ContentEntry>('POST', `${path}${query({ locale: entry.locale })}`);
      onRestored(answer.data, version);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(null);
    }
  };
  const restoreColumn = {
    label: 'Restore',
    render: (v: ContentVersion) =>
      v.version === entry.version ? null : (
        <Button
          size="xs"
          variant="default"
          loading={busy === v.version}
          onClick={() => void restore(v.version)}
          aria-label={`Restore version ${v.version}`}
        >
          Restore
        </Button>
      ),
  };
  return (
    <section aria-labelledby="content-versions">
      <Title order={2} size="h4" id="content-versions" mt="lg" mb="sm">
        Versions
      </Title>
      <ErrorNote error={error} />
      <ResourceList<ContentVersion>
        path={`/admin/content/${encodeURIComponent(entry.key)}/versions`}
        initial={{ locale: entry.locale }}
        caption="Versions"
        keyOf={(v) => String(v.version)}
        columns={[
          {
            label: 'Version',
            render: (v) => (v.version === entry.version ? `${v.version} (current)` : v.version),
          },
          { label: 'Title', render: (v) => v.title },
          { label: 'Body', render: (v) => excerpt(v.body) },
          { label: 'Status', render: (v) => <Status value={v.status} /> },
          { label: 'Written', render: (v) => when(v.createdAt) },
          ...(editable ? [restoreColumn] : []),
        ]}
      />
    </section>
  );
}
