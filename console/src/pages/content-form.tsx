import { Button, Group, Paper, Radio, Stack, Textarea, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { ApiError, call, type FormErrors, fieldErrors, get, noFormErrors, query } from '../api';
import { ErrorNote } from '../components/bits';

export interface ContentEntry {
  id: string;
  key: string;
  locale: string;
  title: string;
  body: string;
  status: 'draft' | 'published';
  version: number;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

type Draft = Pick<ContentEntry, 'key' | 'locale' | 'title' | 'body' | 'status'>;
const EDITABLE = ['title', 'body', 'status'] as const;

/** The admin path of one entry: its key, and its locale as `?locale=`. */
export const entryPath = (key: string, locale: string) =>
  `/admin/content/${encodeURIComponent(key)}${query({ locale })}`;

/** The form field an API error names: the key is in the path, the locale in the body or the query. */
const PLACES: Record<string, keyof Draft> = {
  'path.key': 'key',
  locale: 'locale',
  'query.locale': 'locale',
  title: 'title',
  body: 'body',
  status: 'status',
};

/**
 * A content entry's form. A new one (`entry` null) takes a key and a locale and is created with
 * a PUT, after a read that makes sure it does not replace an entry already there; an existing
 * one sends the fields changed with a PATCH. API errors are shown at the field they name.
 */
export function ContentEntryForm({
  entry,
  editable,
  onSaved,
}: {
  entry: ContentEntry | null;
  editable: boolean;
  onSaved: (saved: ContentEntry) => void;
}) {
  const [draft, setDraft] = useState<Draft>(
    entry ?? { key: '', locale: 'en', title: '', body: '', status: 'draft' },
  );
  const [errors, setErrors] = useState<FormErrors>(noFormErrors);
  const [busy, setBusy] = useState(false);
  const changed = entry ? EDITABLE.filter((f) => draft[f] !== entry[f]) : [...EDITABLE];
  const set = (field: keyof Draft) => (value: string) => setDraft({ ...draft, [field]: value });

  const create = async (): Promise<ContentEntry | null> => {
    const taken = await get<ContentEntry>(entryPath(draft.key, draft.locale)).then(
      () => true,
      (e) => {
        if (e instanceof ApiError && e.status === 404) return false;
        throw e;
      },
    );
    if (taken) {
      setErrors({
        fields: { key: `A page ${draft.key} in ${draft.locale} exists already: open it from the list.` },
        general: null,
      });
      return null;
    }
    const { key, ...body } = draft;
    const answer = await call<ContentEntry>('PUT', `/admin/content/${encodeURIComponent(key)}`, body);
    return answer.data;
  };
  const update = async (current: ContentEntry) => {
    const changes = Object.fromEntries(changed.map((f) => [f, draft[f]]));
    return (await call<ContentEntry>('PATCH', entryPath(current.key, current.locale), changes)).data;
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors(noFormErrors);
    try {
      const written = entry ? await update(entry) : await create();
      if (written) onSaved(written);
    } catch (err) {
      setErrors(fieldErrors(err, (field) => PLACES[field]));
    } finally {
      setBusy(false);
    }
  };
  const error = (field: keyof Draft) => errors.fields[field];

  return (
    <Paper
      withBorder
      p="md"
      mb="md"
      component="form"
      onSubmit={submit}
      aria-label={entry ? 'Edit the content page' : 'New content page'}
    >
      <Stack>
        <Group grow align="start">
          <TextInput
            label="Key"
            description="A slug: a-z, 0-9 and single hyphens, e.g. return-policy"
            required
            readOnly={entry !== null}
            variant={entry ? 'filled' : 'default'}
            value={draft.key}
            onChange={(e) => set('key')(e.currentTarget.value)}
            error={error('key')}
          />
          <TextInput
            label="Locale"
            description="A BCP 47 tag: en, pt-BR, zh-Hant-TW"
            required
            readOnly={entry !== null}
            variant={entry ? 'filled' : 'default'}
            value={draft.locale}
            onChange={(e) => set('locale')(e.currentTarget.value)}
            error={error('locale')}
          />
        </Group>
        <TextInput
          label="Title"
          required
          readOnly={!editable}
          value={draft.title}
          onChange={(e) => set('title')(e.currentTarget.value)}
          error={error('title')}
        />
        <Textarea
          label="Body (Markdown)"
          readOnly={!editable}
          autosize
          minRows={6}
          maxRows={24}
          value={draft.body}
          onChange={(e) => set('body')(e.currentTarget.value)}
          error={error('body')}
        />
        <Radio.Group
          label="Status"
          description="A draft is not served to buyers."
          value={draft.status}
          onChange={set('status')}
          error={error('status')}
        >
          <Group mt="xs">
            <Radio value="draft" label="Draft" disabled={!editable} />
            <Radio value="published" label="Published" disabled={!editable} />
          </Group>
        </Radio.Group>
        <ErrorNote error={errors.general} />
        {editable && (
          <Group>
            <Button type="submit" loading={busy} disabled={changed.length === 0}>
              {entry ? 'Save changes' : 'Create page'}
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
