import { Button, Group, Paper, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { call, type FormErrors, fieldErrors, noFormErrors } from '../api';
import { ErrorNote, Status } from '../components/bits';
import { useApi } from '../hooks';
import { useSession } from '../session';
import { type Media, MediaEditor } from './product-media';

interface LocaleContent {
  locale: string;
  title: string | null;
  description: string | null;
  brand: string | null;
  category: string | null;
  media: Media[];
}
interface ProductContent {
  slug: string | null;
  status: string;
  version: number;
  locales: LocaleContent[];
}

const FIELDS = ['title', 'description', 'brand', 'category'] as const;
type Draft = Record<(typeof FIELDS)[number], string>;

/** A product's localised content: edit a locale's text and media, publish or unpublish. */
export function ProductContentEditor({ productId }: { productId: string }) {
  const { can } = useSession();
  const { data, error, reload } = useApi<ProductContent>(`/admin/products/${productId}/content`);
  const [locale, setLocale] = useState('en');
  const [draft, setDraft] = useState<Draft>({ title: '', description: '', brand: '', category: '' });
  const [saveErrors, setSaveErrors] = useState<FormErrors>(noFormErrors);
  const [saved, setSaved] = useState(false);
  const current = data?.locales.find((l) => l.locale === locale);

  const title = current?.title ?? '';
  const description = current?.description ?? '';
  const brand = current?.brand ?? '';
  const category = current?.category ?? '';
  // The draft follows the server's text (a locale chosen, text saved), not each reload: saving
  // media or publishing reloads the content, and the text being edited must stay as typed.
  useEffect(() => {
    setDraft({ title, description, brand, category });
  }, [title, description, brand, category]);

  const write = async (method: string, path: string, body: object) => {
    setSaveErrors(noFormErrors);
    setSaved(false);
    try {
      await call(method, path, body);
      setSaved(true);
      reload();
    } catch (e) {
      setSaveErrors(fieldErrors(e, (field) => FIELDS.find((f) => f === field)));
    }
  };
  const save = () => {
    const fields = Object.fromEntries(FIELDS.filter((f) => draft[f] !== '').map((f) => [f, draft[f]]));
    return current
      ? write('PATCH', `/admin/products/${productId}/content/${locale}`, fields)
      : write('PUT', `/admin/products/${productId}/content/${locale}`, fields);
  };
  const editable = can('catalog.write');

  return (
    <Paper withBorder p="md" my="md" component="section" aria-labelledby="content-title">
      <Group justify="space-between">
        <Title order={2} size="h4" id="content-title">
          Content
        </Title>
        {data && (
          <Group gap="xs">
            <Text size="sm" c="dimmed">
              Version {data.version}
            </Text>
            <Status value={data.status} />
          </Group>
        )}
      </Group>
      <ErrorNote error={error && !/not found/i.test(error) ? error : null} />
      <Stack mt="sm">
        <Select
          label="Locale"
          data={[...new Set(['en', ...(data?.locales.map((l) => l.locale) ?? [])])]}
          value={locale}
          onChange={(v) => setLocale(v ?? 'en')}
          w={160}
          allowDeselect={false}
        />
        <TextInput
          label="Title"
          error={saveErrors.fields.title}
          readOnly={!editable}
          value={draft.title}
          onChange={(e) => setDraft({ ...draft, title: e.currentTarget.value })}
        />
        <Textarea
          label="Description (Markdown)"
          error={saveErrors.fields.description}
          readOnly={!editable}
          autosize
          minRows={3}
          value={draft.description}
          onChange={(e) => setDraft({ ...draft, description: e.currentTarget.value })}
        />
        <Group grow>
          <TextInput
            label="Brand"
            error={saveErrors.fields.brand}
            readOnly={!editable}
            value={draft.brand}
            onChange={(e) => setDraft({ ...draft, brand: e.currentTarget.value })}
          />
          <TextInput
            label="Category"
            error={saveErrors.fields.category}
            readOnly={!editable}
            value={draft.category}
            onChange={(e) => setDraft({ ...draft, category: e.currentTarget.value })}
          />
        </Group>
        <ErrorNote error={saveErrors.general} />
        {saved && (
          <output aria-live="polite" className="saved">
            Saved.
          </output>
        )}
        {editable && (
          <Group>
            <Button onClick={() => void save()}>Save content</Button>
            {data && (
              <Button
                variant="default"
                onClick={() =>
                  void write('PATCH', `/admin/products/${productId}/content`, {
                    status: data.status === 'published' ? 'draft' : 'published',
                  })
                }
              >
                {data.status === 'published' ? 'Unpublish' : 'Publish'}
              </Button>
            )}
          </Group>
        )}
        <MediaEditor
          key={`${locale}-${data?.version ?? 0}`}
          productId={productId}
          locale={locale}
          media={current ? current.media : null}
          editable={editable}
          onSaved={() => {
            setSaved(true);
            reload();
          }}
        />
      </Stack>
    </Paper>
  );
}
