import { Button, Group, Menu, Paper, Select, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { call, errorText, when } from '../api';
import { DataTable, ErrorNote, OnceSecret, PageTitle, Status } from '../components/bits';
import { ResourceList } from '../components/resource-list';
import { useApi } from '../hooks';
import { useSession } from '../session';

interface User {
  id: string;
  email: string;
  name: string | null;
  role: string;
  status: string;
  lastSignInAt?: string | null;
  createdAt: string;
}
interface Invitation {
  id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  invitedAt: string;
  expiresAt: string;
}
interface Role {
  name: string;
  description: string;
  permissions: string[];
}
const ROLES = ['owner', 'admin', 'developer', 'support', 'viewer'];

function Invite({ onInvited }: { onInvited: (link: { email: string; url: string }) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('viewer');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const answer = await call<{ user: User; invitation: { url: string } }>('POST', '/admin/users', {
        email,
        role,
        ...(name ? { name } : {}),
      });
      onInvited({ email, url: answer.data.invitation.url });
      setEmail('');
      setName('');
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Paper withBorder p="sm" mb="md" component="form" onSubmit={submit} aria-label="Invite a user">
      <Group align="end" wrap="wrap">
        <TextInput
          label="Email"
          type="email"
          required
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
        />
        <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Select
          label="Role"
          data={ROLES}
          value={role}
          onChange={(v) => setRole(v ?? 'viewer')}
          allowDeselect={false}
          w={150}
        />
        <Button type="submit">Invite</Button>
      </Group>
      <ErrorNote error={error} />
    </Paper>
  );
}

export function TeamPage() {
  const { can, session } = useSession();
  const [link, setLink] = useState<{ label: string; url: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const roles = useApi<Role[]>('/admin/roles');
  const writable = can('team.write');
  const act = async (what: () => Promise<void>) => {
    try {
      await what();
      setError(null);
      setVersion((v) => v + 1);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const resendInvitation = (i: Invitation) =>
    act(async () => {
      const answer = await call<{ url: string }>('POST', `/admin/invitations/${i.id}/resend`);
      setLink({ label: `New invitation link for ${i.email}`, url: answer.data.url });
    });
  const revokeInvitation = (i: Invitation) =>
    act(async () => {
      await call('DELETE', `/admin/invitations/${i.id}`);
      setLink(null);
    });
  const resetLink = (u: User) =>
    act(async () => {
      const answer = await call<{ url: string }>('POST', `/admin/users/${u.id}/password-reset`);
      setLink({ label: `Password reset link for ${u.email}`, url: answer.data.url });
    });

  return (
    <>
      <PageTitle>Team</PageTitle>
      {writable && (
        <Invite
          onInvited={(i) => act(async () => setLink({ label: `Invitation link for ${i.email}`, url: i.url }))}
        />
      )}
      {link && <OnceSecret label={link.label} value={link.url} />}
      <ErrorNote error={error} />
      <Title order={2} size="h4" my="sm">
        Pending invitations
      </Title>
      <ResourceList<Invitation>
        key={`invitations-${version}`}
        path="/admin/invitations"
        caption="Pending invitations"
        keyOf={(i) => i.id}
        columns={[
          { label: 'Email', render: (i) => i.email },
          { label: 'Role', render: (i) => i.role },
          { label: 'Status', render: (i) => <Status value={i.status} /> },
          { label: 'Invited', render: (i) => when(i.invitedAt) },
          { label: 'Link expires', render: (i) => when(i.expiresAt) },
          {
            label: 'Actions',
            render: (i) =>
              writable ? (
                <Group gap="xs" wrap="nowrap">
                  <Button
                    size="xs"
                    variant="default"
                    onClick={() => void resendInvitation(i)}
                    aria-label={`Resend the invitation of ${i.email}`}
                  >
                    Resend
                  </Button>
                  <Button
                    size="xs"
                    variant="default"
                    color="red"
                    onClick={() => void revokeInvitation(i)}
                    aria-label={`Revoke the invitation of ${i.email}`}
                  >
                    Revoke
                  </Button>
                </Group>
              ) : null,
          },
        ]}
      />
      <Title order={2} size="h4" my="sm">
        Users
      </Title>
      <ResourceList<User>
        key={`users-${version}`}
        path="/admin/users"
        caption="Users"
        keyOf={(u) => u.id}
        columns={[
          { label: 'Email', render: (u) => u.email },
          { label: 'Name', render: (u) => u.name ?? '—' },
          { label: 'Role', render: (u) => u.role },
          { label: 'Status', render: (u) => <Status value={u.status} /> },
          { label: 'Created', render: (u) => when(u.createdAt) },
          {
            label: 'Actions',
            render: (u) =>
              writable && u.id !== session?.user.id ? (
                <Menu>
                  <Menu.Target>
                    <Button size="xs" variant="default" aria-label={`Manage ${u.email}`}>
                      Manage
                    </Button>
                  </Menu.Target>
                  <Menu.Dropdown>
                    {ROLES.filter((r) => r !== u.role).map((r) => (
                      <Menu.Item
                        key={r}
                        onClick={() =>
                          void act(
                            async () => void (await call('PATCH', `/admin/users/${u.id}`, { role: r })),
                          )
                        }
                      >
                        Make {r}
                      </Menu.Item>
                    ))}
                    <Menu.Item
                      onClick={() =>
                        void act(
                          async () =>
                            void (await call('PATCH', `/admin/users/${u.id}`, {
                              status: u.status === 'active' ? 'disabled' : 'active',
                            })),
                        )
                      }
                    >
                      {u.status === 'active' ? 'Disable' : 'Enable'}
                    </Menu.Item>
                    <Menu.Item onClick={() => void resetLink(u)}>Password reset link</Menu.Item>
                    <Menu.Item
                      onClick={() =>
                        void act(async () => void (await call('DELETE', `/admin/users/${u.id}/sessions`)))
                      }
                    >
                      Sign out everywhere
                    </Menu.Item>
                  </Menu.Dropdown>
                </Menu>
              ) : null,
          },
        ]}
      />
      <Title order={2} size="h4" my="sm">
        Roles
      </Title>
      <ErrorNote error={roles.error} />
      <DataTable
        rows={roles.data ?? []}
        caption="Roles"
        keyOf={(r) => r.name}
        columns={[
          { label: 'Role', render: (r) => r.name },
          { label: 'What it may do', render: (r) => r.description },
          { label: 'Permissions', render: (r) => r.permissions.join(', ') },
        ]}
      />
    </>
  );
}
