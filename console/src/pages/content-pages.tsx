import { Anchor, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { call, errorText, query, when } from '../api';
import { AuditTrail } from '../components/audit-trail';
import { ErrorNote, Fields, LinkTo, Loading, Mono, PageTitle, Status } from '../components/bits';
import { ResourceList } from '../components/resource-list';
import { useApi } from '../hooks';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { type ContentEntry, ContentEntryForm, entryPath } from './content-form';
import { ContentVersions } from './content-versions';

/** The content pages (terms, privacy, returns...): one row per key and locale, each opening its editor. */
export function ContentPagesList() {
  const { can } = useSession();
  return (
    <>
      {can('catalog.write') && (
        <Group mb="md">
          <Button component="a" href={href('catalog', 'content-new')}>
            New content page
          </Button>
        </Group>
      )}
      <ResourceList<ContentEntry>
        path="/admin/content"
        caption="Content pages"
        keyOf={(c) => c.id}
        filters={[
          { name: 'key', label: 'Key' },
          { name: 'status', label: 'Status', options: ['draft', 'published'] },
        ]}
        columns={[
          {
            label: 'Key',
            render: (c) => (
              <LinkTo to={href('catalog', 'content', c.key, c.locale)}>
                <Mono>{c.key}</Mono>
              </LinkTo>
            ),
          },
          { label: 'Locale', render: (c) => c.locale },
          { label: 'Title', render: (c) => c.title },
          { label: 'Status', render: (c) => <Status value={c.status} /> },
          { label: 'Version', render: (c) => c.version },
          { label: 'Updated', render: (c) => when(c.updatedAt) },
        ]}
      />
    </>
  );
}

/** Where buyers read the published page, no key needed (getPublicContent). */
const publicPath = (tenantId: string, e: ContentEntry) =>
  `/api/v1/t/${tenantId}/content/${e.key}${query({ locale: e.locale })}`;

const Back = () => (
  <Group mb="xs">
    <Anchor href={href('catalog', 'content')}>← Content pages</Anchor>
  </Group>
);

/** A new content page: its key and locale, title, Markdown body and status. */
export function NewContentPage() {
  const { can } = useSession();
  return (
    <>
      <Back />
      <PageTitle>New content page</PageTitle>
      {can('catalog.write') ? (
        <ContentEntryForm
          entry={null}
          editable
          onSaved={(saved) => navigate('catalog', 'content', saved.key, saved.locale)}
        />
      ) : (
        <Text>Your role may read content pages but not create them.</Text>
      )}
    </>
  );
}

function DeleteEntry({ entry }: { entry: ContentEntry }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    try {
      await call('DELETE', entryPath(entry.key, entry.locale));
      setOpen(false);
      navigate('catalog', 'content');
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button color="red.9" variant="outline" onClick={() => setOpen(true)}>
        Delete page
      </Button>
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={open}
        onClose={() => setOpen(false)}
        title="Delete this content page?"
      >
        <Stack>
          <Text size="sm">
            The page <code>{entry.key}</code> in <code>{entry.locale}</code> and all its versions are deleted.
            Its other locales stay.
          </Text>
          <ErrorNote error={error} />
          <Group justify="end">
            <Button variant="default" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button color="red.9" onClick={() => void remove()} loading={busy}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** One content page in one locale: its fields to edit, its versions to restore, its audit trail. */
export function ContentPageEditor({ entryKey, locale }: { entryKey: string; locale: string }) {
  const { can, session } = useSession();
  const { data, error, loading, reload } = useApi<ContentEntry>(entryPath(entryKey, locale));
  // Versions are read again after each save or restore.
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = (saved: ContentEntry, what: string) => {
    setNotice(`${what}: version ${saved.version}.`);
    reload();
    setVersion((v) => v + 1);
  };
  const editable = can('catalog.write');
  return (
    <>
      <Back />
      <ErrorNote error={error} />
      {loading && !data && <Loading />}
      {data && (
        <>
          <PageTitle actions={editable && <DeleteEntry entry={data} />}>{data.title}</PageTitle>
          <Fields
            items={[
              ['Key', <Mono key="k">{data.key}</Mono>],
              ['Locale', data.locale],
              ['Status', <Status key="s" value={data.status} />],
              ['Version', data.version],
              ['Published', when(data.publishedAt)],
              [
                'Public address',
                data.status === 'published' ? (
                  <Anchor key="p" href={publicPath(session?.tenant.id ?? '', data)} ff="monospace" size="sm">
                    {publicPath(session?.tenant.id ?? '', data)}
                  </Anchor>
                ) : (
                  'not served while a draft'
                ),
              ],
            ]}
          />
          {/* Always there, so that a screen reader announces the notice when it is set. */}
          <output aria-live="polite" className="saved">
            {notice ?? ''}
          </output>
          <ContentEntryForm
            key={data.version}
            entry={data}
            editable={editable}
            onSaved={(saved) => refresh(saved, 'Saved')}
          />
          <ContentVersions
            key={`versions-${version}`}
            entry={data}
            editable={editable}
            onRestored={(saved, from) => refresh(saved, `Version ${from} restored`)}
          />
          <AuditTrail key={`audit-${version}`} resourceId={`${data.key}/${data.locale}`} />
        </>
      )}
    </>
  );
}
