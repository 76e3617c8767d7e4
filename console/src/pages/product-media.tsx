import { Button, Fieldset, Group, NativeSelect, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { call, type FormErrors, fieldErrors, noFormErrors } from '../api';
import { DataTable, ErrorNote } from '../components/bits';

export interface Media {
  url: string;
  type: string;
  alt: string | null;
  position: number;
}
type Item = Omit<Media, 'position' | 'alt'> & { alt: string };

const TYPES = ['image', 'video'];
const BLANK: Item = { url: '', type: 'image', alt: '' };

/** `media.2.url` of the error body → `2.url`, the place of that input in the list. */
function placeOf(field: string) {
  const match = /^media\.(\d+)\.(url|type|alt)$/.exec(field);
  return match ? `${match[1]}.${match[2]}` : undefined;
}

function MediaTable({ media }: { media: Media[] }) {
  return (
    <DataTable
      rows={media}
      caption="Media"
      keyOf={(m) => `${m.position}-${m.url}`}
      empty="No media in this locale."
      columns={[
        { label: 'Media', render: (m) => <a href={m.url}>{m.alt || m.url}</a> },
        { label: 'Type', render: (m) => m.type },
        { label: 'Position', render: (m) => m.position },
      ]}
    />
  );
}

/** The fields of one item, to change it, move it or take it out of the list. */
function MediaRow({
  item,
  index,
  count,
  errors,
  change,
  move,
  remove,
}: {
  item: Item;
  index: number;
  count: number;
  errors: FormErrors;
  change: (item: Item) => void;
  move: (by: -1 | 1) => void;
  remove: () => void;
}) {
  const n = index + 1;
  return (
    <Fieldset legend={`Media ${n}`} p="sm">
      <Group align="start" wrap="wrap">
        <TextInput
          label="URL"
          type="url"
          required
          w={340}
          value={item.url}
          onChange={(e) => change({ ...item, url: e.currentTarget.value })}
          error={errors.fields[`${index}.url`]}
        />
        <NativeSelect
          label="Type"
          data={TYPES}
          value={item.type}
          onChange={(e) => change({ ...item, type: e.currentTarget.value })}
          error={errors.fields[`${index}.type`]}
        />
        <TextInput
          label="Alt text"
          w={240}
          value={item.alt}
          onChange={(e) => change({ ...item, alt: e.currentTarget.value })}
          error={errors.fields[`${index}.alt`]}
        />
      </Group>
      <Group gap="xs" mt="sm">
        <Button size="xs" variant="default" disabled={index === 0} onClick={() => move(-1)}>
          Move media {n} up
        </Button>
        <Button size="xs" variant="default" disabled={index === count - 1} onClick={() => move(1)}>
          Move media {n} down
        </Button>
        <Button size="xs" variant="outline" color="red.9" onClick={remove}>
          Remove media {n}
        </Button>
      </Group>
    </Fieldset>
  );
}

function AddMedia({ onAdd }: { onAdd: (item: Item) => void }) {
  const [item, setItem] = useState<Item>(BLANK);
  const add = (e: FormEvent) => {
    e.preventDefault();
    onAdd(item);
    setItem(BLANK);
  };
  return (
    <Paper withBorder p="sm" component="form" onSubmit={add} aria-label="Add media">
      <Group align="end" wrap="wrap">
        <TextInput
          label="New media URL"
          description="https only"
          type="url"
          required
          w={340}
          value={item.url}
          onChange={(e) => setItem({ ...item, url: e.currentTarget.value })}
        />
        <NativeSelect
          label="New media type"
          data={TYPES}
          value={item.type}
          onChange={(e) => setItem({ ...item, type: e.currentTarget.value })}
        />
        <TextInput
          label="New media alt text"
          w={240}
          value={item.alt}
          onChange={(e) => setItem({ ...item, alt: e.currentTarget.value })}
        />
        <Button type="submit" variant="default">
          Add to the list
        </Button>
      </Group>
    </Paper>
  );
}

/**
 * A locale's media, in order: add, change, move and remove items, then save the list (the
 * locale's `media`, positions 0, 1, 2... in the order shown) with one PATCH of that locale.
 * Read-only without `catalog.write`, and until the locale has content (a title) to patch.
 */
export function MediaEditor({
  productId,
  locale,
  media,
  editable,
  onSaved,
}: {
  productId: string;
  locale: string;
  /** Null: the locale has no content yet. */
  media: Media[] | null;
  editable: boolean;
  onSaved: () => void;
}) {
  const initial = [...(media ?? [])]
    .sort((a, b) => a.position - b.position)
    .map(({ url, type, alt }) => ({ url, type, alt: alt ?? '' }));
  const [items, setItems] = useState<Item[]>(initial);
  const [errors, setErrors] = useState<FormErrors>(noFormErrors);
  const [busy, setBusy] = useState(false);
  const dirty = JSON.stringify(items) !== JSON.stringify(initial);

  const title = (
    <Title order={3} size="h5" id="media-title">
      Media
    </Title>
  );
  if (!editable || media === null)
    return (
      <section aria-labelledby="media-title">
        {title}
        {editable && <Text size="sm">Save this locale’s title first: media can be added then.</Text>}
        <MediaTable media={media ?? []} />
      </section>
    );

  // Errors name items by their place in the list: a changed list makes them stale.
  const update = (next: Item[]) => {
    setItems(next);
    setErrors(noFormErrors);
  };
  const move = (from: number, by: -1 | 1) => {
    const next = [...items];
    const [moved] = next.splice(from, 1);
    if (moved) next.splice(from + by, 0, moved);
    update(next);
  };
  const save = async () => {
    setBusy(true);
    setErrors(noFormErrors);
    try {
      const list = items.map((m, position) => ({ ...m, position }));
      await call('PATCH', `/admin/products/${productId}/content/${locale}`, { media: list });
      onSaved();
    } catch (e) {
      setErrors(fieldErrors(e, placeOf));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack component="section" aria-labelledby="media-title" gap="sm">
      {title}
      {items.length === 0 && <Text c="dimmed">No media in this locale.</Text>}
      {items.map((item, i) => (
        <MediaRow
          // biome-ignore lint/suspicious/noArrayIndexKey: the position is the identity of an item being edited
          key={i}
          item={item}
          index={i}
          count={items.length}
          errors={errors}
          change={(changed) => update(items.map((m, j) => (j === i ? changed : m)))}
          move={(by) => move(i, by)}
          remove={() => update(items.filter((_, j) => j !== i))}
        />
      ))}
      <AddMedia onAdd={(item) => update([...items, item])} />
      <ErrorNote error={errors.general} />
      <Group>
        <Button onClick={() => void save()} loading={busy} disabled={!dirty}>
          Save media
        </Button>
        {dirty && (
          <Text size="sm" c="dimmed">
            Unsaved changes to the media.
          </Text>
        )}
      </Group>
    </Stack>
  );
}
