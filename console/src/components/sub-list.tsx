import { Title } from '@mantine/core';
import { useApi } from '../hooks';
import { type Column, DataTable, ErrorNote, Loading } from './bits';

/** A titled list read from one API path (a resource's related records). */
export function SubList<T>({
  title,
  path,
  columns,
  keyOf,
  empty,
}: {
  title: string;
  path: string;
  columns: Column<T>[];
  keyOf: (row: T, i: number) => string;
  empty?: string;
}) {
  const { data, error, loading } = useApi<T[]>(path);
  return (
    <section aria-label={title}>
      <Title order={2} size="h4" mt="md" mb="sm">
        {title}
      </Title>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading />
      ) : (
        <DataTable
          rows={data ?? []}
          columns={columns}
          caption={title}
          keyOf={keyOf}
          {...(empty ? { empty } : {})}
        />
      )}
    </section>
  );
}
