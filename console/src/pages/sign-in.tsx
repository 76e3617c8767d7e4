import { Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { call, errorText } from '../api';
import { ErrorNote } from '../components/bits';
import { type ConsoleSession, useSession } from '../session';

export function SignIn() {
  const { signedIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      signedIn((await call<ConsoleSession>('POST', '/console/session', { email, password })).data);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder p="xl" w={400} maw="100%" component="form" onSubmit={submit}>
        <Stack>
          <Title order={1} size="h2">
            Sign in to the console
          </Title>
          <TextInput
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <ErrorNote error={error} />
          <Button type="submit" loading={busy}>
            Sign in
          </Button>
          <Text size="xs" c="dimmed">
            First time? Open the sign-in link the server printed at start, or the invitation link you were
            sent.
          </Text>
        </Stack>
      </Paper>
    </Center>
  );
}
