import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Loader,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import type { ReactNode } from 'react';

// Alert titles in their color on its light background fall below AA contrast: dark text instead.
const DARK_TITLE = { title: { color: 'var(--mantine-color-dark-9)' } };

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <Group justify="space-between" mb="md" wrap="wrap">
      <Title order={1} size="h2">
        {children}
      </Title>
      {actions}
    </Group>
  );
}

export function ErrorNote({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <Alert color="red" title="Something went wrong" role="alert" styles={DARK_TITLE}>
      {error}
    </Alert>
  );
}

export const Loading = () => <Loader role="status" aria-label="Loading" size="sm" />;

const STATUS_COLORS: Record<string, string> = {
  active: 'green',
  paid: 'green',
  success: 'green',
  succeeded: 'green',
  completed: 'green',
  published: 'green',
  confirmed: 'green',
  pending: 'yellow',
  processing: 'yellow',
  draft: 'gray',
  expired: 'gray',
  failed: 'red',
  dead_letter: 'red',
  revoked: 'red',
  disabled: 'red',
  inactive: 'gray',
  canceled: 'gray',
  cancelled: 'gray',
};

export function Status({ value }: { value: string | boolean | null | undefined }) {
  if (value === null || value === undefined) return <Text c="dimmed">—</Text>;
  const text = typeof value === 'boolean' ? (value ? 'enabled' : 'disabled') : value;
  // Dark text on a light badge: readable at WCAG AA contrast.
  return (
    <Badge variant="light" color={STATUS_COLORS[text] ?? 'blue'} c="dark.8">
      {text.replace(/_/g, ' ')}
    </Badge>
  );
}

/** A label/value grid of a resource's main fields. */
export function Fields({ items }: { items: [string, ReactNode][] }) {
  return (
    <Paper withBorder p="md" mb="md">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" component="dl" m={0}>
        {items.map(([label, value]) => (
          <div key={label}>
            <Text component="dt" size="sm" c="dimmed">
              {label}
            </Text>
            <Text component="dd" m={0} style={{ overflowWrap: 'anywhere' }}>
              {value ?? '—'}
            </Text>
          </div>
        ))}
      </SimpleGrid>
    </Paper>
  );
}

/** A secret the API returns once (an API key, a webhook secret, a one-time link), with a copy button. */
export function OnceSecret({ label, value }: { label: string; value: string }) {
  return (
    <Alert color="yellow" title={label} role="status" styles={DARK_TITLE}>
      <Stack gap="xs">
        <Text size="sm">Copy it now: it is shown only this once.</Text>
        <Code block data-testid="once-secret" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="xs" variant="outline" onClick={copy} w="fit-content">
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Stack>
    </Alert>
  );
}

export interface Column<T> {
  label: string;
  render: (row: T) => ReactNode;
}

/** A table that scrolls sideways on a phone rather than squeezing its columns. */
export function DataTable<T>({
  rows,
  columns,
  caption,
  keyOf,
  empty = 'Nothing here yet.',
}: {
  rows: T[];
  columns: Column<T>[];
  caption: string;
  keyOf: (row: T, i: number) => string;
  empty?: string;
}) {
  if (rows.length === 0) return <Text c="dimmed">{empty}</Text>;
  return (
    <Table.ScrollContainer minWidth={600}>
      <Table striped highlightOnHover captionSide="top">
        <Table.Caption style={{ textAlign: 'left' }} className="visually-hidden">
          {caption}
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.label} scope="col">
                {c.label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row, i) => (
            <Table.Tr key={keyOf(row, i)}>
              {columns.map((c) => (
                <Table.Td key={c.label}>{c.render(row)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export const LinkTo = ({ to, children }: { to: string; children: ReactNode }) => (
  <Anchor href={to}>{children}</Anchor>
);

export const Mono = ({ children }: { children: ReactNode }) => (
  <Text component="span" ff="monospace" size="sm">
    {children}
  </Text>
);
