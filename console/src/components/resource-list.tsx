import { Button, Group, Paper, Select, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { query } from '../api';
import { useApi, useInterval } from '../hooks';
import { type Column, DataTable, ErrorNote, Loading } from './bits';

export interface Filter {
  name: string;
  label: string;
  /** Choices for a select; a text input otherwise. */
  options?: string[];
  placeholder?: string;
}

/**
 * A list of the API with its filters and cursor paging: `next` follows `meta.nextCursor`,
 * `previous` goes back through the cursors already seen.
 */
export function ResourceList<T>({
  path,
  columns,
  caption,
  filters = [],
  keyOf,
  limit = 20,
  initial = {},
  refreshWhile,
}: {
  path: string;
  columns: Column<T>[];
  caption: string;
  filters?: Filter[];
  keyOf: (row: T) => string;
  limit?: number;
  initial?: Record<string, string>;
  /** Reads the page again every 2 s while a row is still changing (a delivery not yet settled). */
  refreshWhile?: (row: T) => boolean;
}) {
  const [draft, setDraft] = useState<Record<string, string>>(initial);
  const [applied, setApplied] = useState<Record<string, string>>(initial);
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const { answer, error, loading, reload } = useApi<T[]>(`${path}${query({ ...applied, limit, cursor })}`);
  useInterval(reload, 2000, Boolean(refreshWhile && answer?.data.some(refreshWhile)));
  const nextCursor = answer?.meta?.nextCursor ?? null;

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setApplied(draft);
    setCursors([]);
  };

  return (
    <>
      {filters.length > 0 && (
        <Paper withBorder p="sm" mb="md" component="form" onSubmit={apply} aria-label={`Filter ${caption}`}>
          <Group align="end" wrap="wrap">
            {filters.map((f) =>
              f.options ? (
                <Select
                  key={f.name}
                  label={f.label}
                  data={f.options}
                  clearable
                  value={draft[f.name] ?? null}
                  onChange={(v) => setDraft({ ...draft, [f.name]: v ?? '' })}
                  w={180}
                />
              ) : (
                <TextInput
                  key={f.name}
                  label={f.label}
                  placeholder={f.placeholder}
                  value={draft[f.name] ?? ''}
                  onChange={(e) => setDraft({ ...draft, [f.name]: e.currentTarget.value })}
                  w={220}
                />
              ),
            )}
            <Button type="submit">Search</Button>
          </Group>
        </Paper>
      )}
      <ErrorNote error={error} />
      {loading && !answer ? (
        <Loading />
      ) : (
        <DataTable rows={answer?.data ?? []} columns={columns} caption={caption} keyOf={keyOf} />
      )}
      <Group mt="sm">
        <Button
          variant="default"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Previous page
        </Button>
        <Button
          variant="default"
          disabled={!nextCursor}
          onClick={() => nextCursor && setCursors([...cursors, nextCursor])}
        >
          Next page
        </Button>
      </Group>
    </>
  );
}
