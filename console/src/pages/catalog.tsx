import { Button, Group, Paper, Tabs, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { call, errorText, money, query, when } from '../api';
import { DataTable, ErrorNote, Fields, LinkTo, Mono, PageTitle, Status } from '../components/bits';
import { ResourceDetail } from '../components/detail';
import { ResourceList } from '../components/resource-list';
import { useApi } from '../hooks';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { ProductContentEditor } from './product-content';
import { StockPanel } from './stock';

interface Charge {
  id: string;
  name: string;
  chargeModel: string;
  tiers: { upTo: number | null; unitPriceCents?: number | null; flatPriceCents?: number | null }[];
}
interface Product {
  id: string;
  name: string;
  type: string;
  currency: string;
  active: boolean;
  billingInterval: string | null;
  charges: Charge[];
  createdAt: string;
}
interface Hit {
  productId: string;
  title: string;
  excerpt: string | null;
  priceCents: number | null;
  currency: string;
  availability: string;
}
interface ContentEntry {
  id: string;
  key: string;
  locale: string;
  title: string;
  status: string;
  updatedAt: string;
}
interface Partner {
  id: string;
  name: string;
  code: string;
  status: string;
}

function ProductDetail({ id }: { id: string }) {
  return (
    <ResourceDetail<Product>
      path={`/admin/products/${id}`}
      back={{ href: href('catalog'), label: 'Catalog' }}
      title={(p) => p.name}
    >
      {(p) => (
        <>
          <Fields
            items={[
              ['Type', p.type],
              ['Active', <Status key="a" value={p.active} />],
              ['Currency', p.currency],
              ['Billing interval', p.billingInterval ?? '—'],
            ]}
          />
          <DataTable
            rows={p.charges}
            caption="Prices"
            keyOf={(c) => c.id}
            columns={[
              { label: 'Charge', render: (c) => c.name },
              { label: 'Model', render: (c) => c.chargeModel.replace(/_/g, ' ') },
              {
                label: 'Prices',
                render: (c) =>
                  c.tiers
                    .map(
                      (t) =>
                        `${money(t.unitPriceCents ?? t.flatPriceCents ?? 0, p.currency)}${t.upTo ? ` up to ${t.upTo}` : ''}`,
                    )
                    .join(', '),
              },
            ]}
          />
          <StockPanel productId={p.id} />
          <ProductContentEditor productId={p.id} />
        </>
      )}
    </ResourceDetail>
  );
}

function CatalogSearch() {
  const [q, setQ] = useState('');
  const [applied, setApplied] = useState<string | null>(null);
  const { data, error } = useApi<Hit[]>(
    applied === null ? null : `/catalog/search${query({ q: applied, limit: 20 })}`,
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setApplied(q);
  };
  return (
    <>
      <Group component="form" onSubmit={submit} align="end" mb="md" role="search">
        <TextInput
          label="Search the published catalog"
          value={q}
          onChange={(e) => setQ(e.currentTarget.value)}
          w={320}
        />
        <Button type="submit">Search</Button>
      </Group>
      <ErrorNote error={error} />
      {applied !== null && (
        <DataTable
          rows={data ?? []}
          caption="Search results"
          keyOf={(h) => h.productId}
          empty="No published product matches."
          columns={[
            {
              label: 'Product',
              render: (h) => <LinkTo to={href('catalog', 'products', h.productId)}>{h.title}</LinkTo>,
            },
            { label: 'Excerpt', render: (h) => h.excerpt ?? '' },
            { label: 'Price', render: (h) => money(h.priceCents, h.currency) },
            { label: 'Availability', render: (h) => h.availability.replace(/_/g, ' ') },
          ]}
        />
      )}
    </>
  );
}

function Partners() {
  const { can } = useSession();
  const [name, setName] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await call('POST', '/admin/partners', { name, code });
      setName('');
      setCode('');
      setError(null);
      setVersion(version + 1);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <>
      {can('catalog.write') && (
        <Paper withBorder p="sm" mb="md" component="form" onSubmit={create} aria-label="Add a partner">
          <Group align="end">
            <TextInput
              label="Partner name"
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <TextInput label="Code" required value={code} onChange={(e) => setCode(e.currentTarget.value)} />
            <Button type="submit">Add partner</Button>
          </Group>
          <ErrorNote error={error} />
        </Paper>
      )}
      <ResourceList<Partner>
        key={version}
        path="/admin/partners"
        caption="Partners"
        keyOf={(p) => p.id}
        columns={[
          { label: 'Name', render: (p) => p.name },
          { label: 'Code', render: (p) => <Mono>{p.code}</Mono> },
          { label: 'Status', render: (p) => <Status value={p.status} /> },
        ]}
      />
    </>
  );
}

export function CatalogPage({ kind, id }: { kind?: string | undefined; id?: string | undefined }) {
  if (kind === 'products' && id) return <ProductDetail id={id} />;
  const tab = kind ?? 'products';
  return (
    <>
      <PageTitle>Catalog</PageTitle>
      <Tabs value={tab} onChange={(v) => navigate('catalog', v ?? 'products')}>
        <Tabs.List mb="md">
          <Tabs.Tab value="products">Products</Tabs.Tab>
          <Tabs.Tab value="search">Search</Tabs.Tab>
          <Tabs.Tab value="content">Content pages</Tabs.Tab>
          <Tabs.Tab value="partners">Partners</Tabs.Tab>
        </Tabs.List>
      </Tabs>
      {tab === 'search' && <CatalogSearch />}
      {tab === 'partners' && <Partners />}
      {tab === 'content' && (
        <ResourceList<ContentEntry>
          path="/admin/content"
          caption="Content pages"
          keyOf={(c) => c.id}
          filters={[
            { name: 'key', label: 'Key' },
            { name: 'status', label: 'Status', options: ['draft', 'published'] },
          ]}
          columns={[
            { label: 'Key', render: (c) => <Mono>{c.key}</Mono> },
            { label: 'Locale', render: (c) => c.locale },
            { label: 'Title', render: (c) => c.title },
            { label: 'Status', render: (c) => <Status value={c.status} /> },
            { label: 'Updated', render: (c) => when(c.updatedAt) },
          ]}
        />
      )}
      {tab === 'products' && (
        <ResourceList<Product>
          path="/admin/products"
          caption="Products"
          keyOf={(p) => p.id}
          columns={[
            {
              label: 'Name',
              render: (p) => <LinkTo to={href('catalog', 'products', p.id)}>{p.name}</LinkTo>,
            },
            { label: 'Type', render: (p) => p.type },
            { label: 'Active', render: (p) => <Status value={p.active} /> },
            { label: 'Created', render: (p) => when(p.createdAt) },
          ]}
        />
      )}
    </>
  );
}
