import { Button, Group, JsonInput, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { call, errorText, type NextAction } from '../api';
import { ErrorNote } from './bits';

const label = (rel: string) =>
  rel
    .replace(/([A-Z])/g, ' $1')
    .replace(/^./, (c) => c.toUpperCase())
    .trim();

/** The body of an action: its arguments that are not filled into its path. */
function bodyOf(action: NextAction) {
  const args = { ...(action.arguments ?? {}) };
  for (const [k, v] of Object.entries(args))
    if (action.href.includes(encodeURIComponent(String(v)))) delete args[k];
  return args;
}

/**
 * The writes a resource's `nextActions` offer the session (GETs are navigation, not buttons;
 * what the role may not do is not shown). Each opens a dialog with the request body the server
 * prefilled, editable, and runs it.
 */
export function ActionButtons({ actions, onDone }: { actions: NextAction[]; onDone: () => void }) {
  const [open, setOpen] = useState<NextAction | null>(null);
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const writes = actions.filter((a) => a.method !== 'GET' && a.allowed);
  if (writes.length === 0) return null;

  const start = (a: NextAction) => {
    setOpen(a);
    setError(null);
    setBody(JSON.stringify(bodyOf(a), null, 2));
  };
  const run = async () => {
    if (!open) return;
    setBusy(true);
    try {
      const parsed = body.trim() ? JSON.parse(body) : undefined;
      await call(open.method, open.href, open.method === 'DELETE' ? undefined : (parsed ?? {}));
      setOpen(null);
      onDone();
    } catch (e) {
      setError(e instanceof SyntaxError ? `The body is not valid JSON: ${e.message}` : errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Group gap="xs" mb="md" aria-label="Actions" role="group">
        {writes.map((a) => (
          <Button key={`${a.rel}-${a.href}`} variant="light" onClick={() => start(a)}>
            {label(a.rel)}
          </Button>
        ))}
      </Group>
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={open !== null}
        onClose={() => setOpen(null)}
        title={open ? label(open.rel) : ''}
      >
        <Stack>
          <Text size="sm">
            {open?.method} <code>{open?.href}</code>
          </Text>
          {open?.method !== 'DELETE' && (
            <JsonInput
              label="Request body (JSON)"
              value={body}
              onChange={setBody}
              autosize
              minRows={3}
              formatOnBlur
            />
          )}
          <ErrorNote error={error} />
          <Group justify="end">
            <Button variant="default" onClick={() => setOpen(null)}>
              Cancel
            </Button>
            <Button onClick={run} loading={busy}>
              Confirm
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
