import { Button, Group, Tabs, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { money, query, when } from '../api';
import { DataTable, ErrorNote, Fields, LinkTo, PageTitle, Status } from '../components/bits';
import { ResourceDetail } from '../components/detail';
import { ResourceList } from '../components/resource-list';
import { useApi } from '../hooks';
import { href, navigate } from '../router';
import { ContentPageEditor, ContentPagesList, NewContentPage } from './content-pages';
import { Partners } from './partners';
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

export function CatalogPage({ kind, id, locale }: { kind?: string; id?: string; locale?: string }) {
  if (kind === 'products' && id) return <ProductDetail id={id} />;
  if (kind === 'content' && id) return <ContentPageEditor entryKey={id} locale={locale ?? 'en'} />;
  if (kind === 'content-new') return <NewContentPage />;
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
      {tab === 'content' && <ContentPagesList />}
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
