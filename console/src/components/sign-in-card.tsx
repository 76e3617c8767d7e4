import { Button, Center, Paper, Stack, Title } from '@mantine/core';
import { type FormEvent, type ReactNode, useState } from 'react';
import { call, errorText } from '../api';
import { type ConsoleSession, useSession } from '../session';
import { ErrorNote } from './bits';

/**
 * The card a person signs in with, alone on the page: a password sign-in or a one-time link.
 * It posts `body()` to `path`, starts the session the server answers, then calls `after`; a
 * refusal is shown above the button.
 */
export function SignInCard({
  title,
  path,
  body,
  after,
  submitLabel,
  width,
  children,
  footer,
}: {
  title: string;
  path: string;
  body: () => object;
  after?: () => void;
  submitLabel: string;
  width: number;
  children: ReactNode;
  /** Under the button. */
  footer?: ReactNode;
}) {
  const { signedIn } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      signedIn((await call<ConsoleSession>('POST', path, body())).data);
      after?.();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder p="xl" w={width} maw="100%" component="form" onSubmit={submit}>
        <Stack>
          <Title order={1} size="h2">
            {title}
          </Title>
          {children}
          <ErrorNote error={error} />
          <Button type="submit" loading={busy}>
            {submitLabel}
          </Button>
          {footer}
        </Stack>
      </Paper>
    </Center>
  );
}
