import { Button, Group, Modal, Paper, Stack, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { call, errorText, type FormErrors, fieldErrors, noFormErrors, when } from '../api';
import { ErrorNote, Mono, Status } from '../components/bits';
import { ResourceList } from '../components/resource-list';
import { useSession } from '../session';

interface Partner {
  id: string;
  name: string;
  code: string;
  status: 'active' | 'inactive';
  updatedAt: string;
}

/** The API fields of a partner that are fields of these forms. */
const placeOf = (field: string) => (field === 'name' || field === 'code' ? field : undefined);

function AddPartner({ onAdded }: { onAdded: () => void }) {
  const [name, setName] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<FormErrors>(noFormErrors);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await call('POST', '/admin/partners', { name, code });
      setName('');
      setCode('');
      setErrors(noFormErrors);
      onAdded();
    } catch (err) {
      setErrors(fieldErrors(err, placeOf));
    }
  };
  return (
    <Paper withBorder p="sm" mb="md" component="form" onSubmit={create} aria-label="Add a partner">
      <Group align="start">
        <TextInput
          label="Partner name"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.fields.name}
        />
        <TextInput
          label="Code"
          required
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={errors.fields.code}
        />
        <Button type="submit" mt={25}>
          Add partner
        </Button>
      </Group>
      <ErrorNote error={errors.general} />
    </Paper>
  );
}

/** A dialog to rename a partner (its code cannot change: price rules and offers name it). */
function RenamePartner({
  partner,
  onClose,
  onSaved,
}: {
  partner: Partner | null;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [name, setName] = useState(partner?.name ?? '');
  const [errors, setErrors] = useState<FormErrors>(noFormErrors);
  const [busy, setBusy] = useState(false);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!partner) return;
    setBusy(true);
    try {
      await call('PATCH', `/admin/partners/${partner.id}`, { name });
      onSaved();
    } catch (err) {
      setErrors(fieldErrors(err, placeOf));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={partner !== null}
      onClose={onClose}
      title={`Edit partner ${partner?.code ?? ''}`}
    >
      <Stack component="form" onSubmit={save}>
        <TextInput
          label="Partner name"
          required
          data-autofocus
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.fields.name}
        />
        <ErrorNote error={errors.general} />
        <Group justify="end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={busy} disabled={name === partner?.name}>
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/**
 * The tenant's partners: add one, rename one, set one inactive (its code stays known: price rules
 * and offers naming it keep it) or active again. Writes need `catalog.write`.
 */
export function Partners() {
  const { can } = useSession();
  const writable = can('catalog.write');
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<Partner | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => {
    setError(null);
    setEditing(null);
    setVersion((v) => v + 1);
  };
  const setStatus = async (p: Partner, status: Partner['status']) => {
    try {
      await call('PATCH', `/admin/partners/${p.id}`, { status });
      refresh();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const actions = {
    label: 'Actions',
    render: (p: Partner) => (
      <Group gap="xs" wrap="nowrap">
        <Button size="xs" variant="default" aria-label={`Edit ${p.name}`} onClick={() => setEditing(p)}>
          Edit
        </Button>
        {p.status === 'active' ? (
          <Button
            size="xs"
            variant="outline"
            color="red.9"
            aria-label={`Disable ${p.name}`}
            onClick={() => void setStatus(p, 'inactive')}
          >
            Disable
          </Button>
        ) : (
          <Button
            size="xs"
            variant="default"
            aria-label={`Enable ${p.name}`}
            onClick={() => void setStatus(p, 'active')}
          >
            Enable
          </Button>
        )}
      </Group>
    ),
  };
  return (
    <>
      {writable && <AddPartner onAdded={refresh} />}
      <ErrorNote error={error} />
      <ResourceList<Partner>
        key={version}
        path="/admin/partners"
        caption="Partners"
        keyOf={(p) => p.id}
        columns={[
          { label: 'Name', render: (p) => p.name },
          { label: 'Code', render: (p) => <Mono>{p.code}</Mono> },
          { label: 'Status', render: (p) => <Status value={p.status} /> },
          { label: 'Updated', render: (p) => when(p.updatedAt) },
          ...(writable ? [actions] : []),
        ]}
      />
      {writable && (
        <RenamePartner
          key={editing?.id ?? 'none'}
          partner={editing}
          onClose={() => setEditing(null)}
          onSaved={refresh}
        />
      )}
    </>
  );
}
