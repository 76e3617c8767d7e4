import { PasswordInput, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { SignInCard } from '../components/sign-in-card';

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  return (
    <SignInCard
      title="Sign in to the console"
      path="/console/session"
      body={() => ({ email, password })}
      submitLabel="Sign in"
      width={400}
      footer={
        <Text size="xs" c="dimmed">
          First time? Open the sign-in link the server printed at start, or the invitation link you were sent.
        </Text>
      }
    >
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
    </SignInCard>
  );
}
