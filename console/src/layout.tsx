import { AppShell, Burger, Button, Group, NavLink, ScrollArea, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { href } from './router';
import { useSession } from './session';

export const SECTIONS: { key: string; label: string }[] = [
  { key: 'overview', label: 'Overview' },
  { key: 'customers', label: 'Customers' },
  { key: 'orders', label: 'Orders' },
  { key: 'subscriptions', label: 'Subscriptions' },
  { key: 'payments', label: 'Payments and refunds' },
  { key: 'checkouts', label: 'Checkout sessions' },
  { key: 'catalog', label: 'Catalog' },
  { key: 'webhooks', label: 'Webhooks' },
  { key: 'developers', label: 'Developers' },
  { key: 'settings', label: 'Settings' },
  { key: 'team', label: 'Team' },
];

export function Layout({ section, children }: { section: string; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure();
  const { session, signOut } = useSession();
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Text fw={700}>Commerce console</Text>
            <Text size="sm" c="dimmed" visibleFrom="sm">
              {session?.tenant.name} · {session?.tenant.environment}
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" visibleFrom="sm" data-testid="signed-in-as">
              {session?.user.email} ({session?.user.role})
            </Text>
            <Button size="xs" variant="default" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Sections">
        <ScrollArea>
          <nav aria-label="Console sections">
            {SECTIONS.map((s) => (
              <NavLink
                key={s.key}
                href={href(s.key)}
                label={s.label}
                active={section === s.key}
                aria-current={section === s.key ? 'page' : undefined}
                onClick={close}
              />
            ))}
            <NavLink href="/docs" label="API reference" target="_blank" rel="noopener" />
          </nav>
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
