import { PasswordInput, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { SignInCard } from '../components/sign-in-card';
import { navigate } from '../router';

/**
 * `#/link/<token>`: a one-time link (the first owner's sign-in link, an invitation, a password
 * reset). The password is optional for a sign-in link and required (12 characters or more) for
 * the others; the server says which when it refuses.
 */
export function LinkPage({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  return (
    <SignInCard
      title="Welcome to the console"
      path="/console/session/link"
      body={() => ({ token, ...(password ? { password } : {}), ...(name ? { name } : {}) })}
      after={() => {
        // The token is spent: keep it out of the history.
        window.history.replaceState(null, '', window.location.pathname);
        navigate('overview');
      }}
      submitLabel="Continue"
      width={440}
    >
      <Text size="sm">
        Choose a password (12 characters or more) to sign in with later. For the first owner’s sign-in link it
        can be left empty.
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
    </SignInCard>
  );
}
