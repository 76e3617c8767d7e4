import { Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { call, errorText } from '../api';
import { ErrorNote } from '../components/bits';
import { navigate } from '../router';
import { type ConsoleSession, useSession } from '../session';

/**
 * `#/link/<token>`: a one-time link (the first owner's sign-in link, an invitation, a password
 * reset). The password is optional for a sign-in link and required (12 characters or more) for
 * the others; the server says which when it refuses.
 */
export function LinkPage({ token }: { token: string }) {
  const { signedIn } = useSession();
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { token, ...(password ? { password } : {}), ...(name ? { name } : {}) };
      const answer = await call<ConsoleSession>('POST', '/console/session/link', body);
      signedIn(answer.data);
      // The token is spent: keep it out of the history.
      window.history.replaceState(null, '', window.location.pathname);
      navigate('overview');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder p="xl" w={440} maw="100%" component="form" onSubmit={submit}>
        <Stack>
          <Title order={1} size="h2">
            Welcome to the console
          </Title>
          <Text size="sm">
            Choose a password (12 characters or more) to sign in with later. For the first owner’s sign-in
            link it can be left empty.
          </Text>
          <TextInput
            label="Your name (optional)"
            autoComplete="name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <PasswordInput
            label="New password"
            autoComplete="new-password"
            minLength={12}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <ErrorNote error={error} />
          <Button type="submit" loading={busy}>
            Continue
          </Button>
        </Stack>
      </Paper>
    </Center>
  );
}
