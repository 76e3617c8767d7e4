import { Button, Group, Paper, Stack, Switch, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { call, errorText } from '../api';
import { ErrorNote, PageTitle } from '../components/bits';
import { useApi } from '../hooks';
import { useSession } from '../session';

type Values = Record<string, unknown>;

/**
 * A form over the string and boolean fields of a settings resource; saves the changed ones with
 * PATCH. Other fields (keys, ids, dates) are not edited here.
 */
function SettingsForm({ title, path, skip }: { title: string; path: string; skip: string[] }) {
  const { can } = useSession();
  const { data, error, reload } = useApi<Values>(path);
  const [values, setValues] = useState<Values>({});
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => setValues(data ?? {}), [data]);
  const editable = can('settings.write');
  const fields = Object.entries(data ?? {}).filter(
    ([k, v]) => !skip.includes(k) && (typeof v === 'string' || typeof v === 'boolean' || v === null),
  );
  const save = async () => {
    const changed = Object.fromEntries(
      fields.filter(([k, v]) => values[k] !== v).map(([k]) => [k, values[k] === '' ? null : values[k]]),
    );
    if (Object.keys(changed).length === 0) return;
    try {
      await call('PATCH', path, changed);
      setSaveError(null);
      setSaved(true);
      reload();
    } catch (e) {
      setSaveError(errorText(e));
    }
  };
  return (
    <Paper withBorder p="md" mb="md" component="section" aria-label={title}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      <ErrorNote error={error ?? saveError} />
      <Stack>
        {fields.map(([k, v]) =>
          typeof v === 'boolean' ? (
            <Switch
              key={k}
              label={k}
              disabled={!editable}
              checked={Boolean(values[k])}
              onChange={(e) => setValues({ ...values, [k]: e.currentTarget.checked })}
            />
          ) : (
            <TextInput
              key={k}
              label={k}
              readOnly={!editable}
              value={String(values[k] ?? '')}
              onChange={(e) => setValues({ ...values, [k]: e.currentTarget.value })}
            />
          ),
        )}
        {saved && <output aria-live="polite">Saved.</output>}
        {editable && (
          <Group>
            <Button onClick={() => void save()}>Save {title.toLowerCase()}</Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

export function SettingsPage() {
  return (
    <>
      <PageTitle>Settings</PageTitle>
      <SettingsForm title="Seller profile" path="/seller" skip={['updatedAt']} />
      <SettingsForm title="Tenant settings" path="/admin/settings" skip={['tenantId']} />
    </>
  );
}
