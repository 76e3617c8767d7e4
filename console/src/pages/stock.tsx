import { Button, Group, NumberInput, Paper, Switch, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { call, errorText } from '../api';
import { ErrorNote } from '../components/bits';
import { useApi } from '../hooks';
import { useSession } from '../session';

interface Stock {
  tracked: boolean;
  onHand: number;
  reserved: number;
  available: number;
}

export function StockPanel({ productId }: { productId: string }) {
  const { can } = useSession();
  const { data, error, reload } = useApi<Stock>(`/admin/products/${productId}/stock`);
  const [tracked, setTracked] = useState(false);
  const [onHand, setOnHand] = useState<number>(0);
  const [saveError, setSaveError] = useState<string | null>(null);
  useEffect(() => {
    if (!data) return;
    setTracked(data.tracked);
    setOnHand(data.onHand);
  }, [data]);
  const save = async () => {
    try {
      await call('PUT', `/admin/products/${productId}/stock`, { tracked, onHand });
      setSaveError(null);
      reload();
    } catch (e) {
      setSaveError(errorText(e));
    }
  };
  return (
    <Paper withBorder p="md" my="md" component="section" aria-labelledby="stock-title">
      <Title order={2} size="h4" id="stock-title" mb="sm">
        Stock
      </Title>
      <ErrorNote error={error ?? saveError} />
      {data && (
        <Text size="sm" mb="sm">
          {data.tracked
            ? `${data.available} available (${data.onHand} on hand, ${data.reserved} reserved)`
            : 'Not tracked: always sellable.'}
        </Text>
      )}
      {can('catalog.write') && (
        <Group align="end">
          <Switch
            label="Track stock"
            checked={tracked}
            onChange={(e) => setTracked(e.currentTarget.checked)}
          />
          <NumberInput
            label="On hand"
            min={0}
            value={onHand}
            onChange={(v) => setOnHand(Number(v) || 0)}
            w={140}
          />
          <Button variant="default" onClick={() => void save()}>
            Save stock
          </Button>
        </Group>
      )}
    </Paper>
  );
}
