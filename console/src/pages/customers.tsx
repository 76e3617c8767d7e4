import { Code, Tabs, Title } from '@mantine/core';
import { money, when } from '../api';
import { DataTable, ErrorNote, Fields, LinkTo, Mono, PageTitle, Status } from '../components/bits';
import { ResourceDetail } from '../components/detail';
import { ResourceList } from '../components/resource-list';
import { SubList } from '../components/sub-list';
import { useApi } from '../hooks';
import { href } from '../router';
import { type Order, orderColumns } from './orders';

interface Account {
  id: string;
  name: string;
  email: string | null;
  externalId: string | null;
  industry: string | null;
  createdAt: string;
}
interface Invoice {
  id: string;
  invoiceNumber: string | null;
  status: string;
  amountCents: number;
  balanceCents: number;
  currency: string;
  dueDate: string | null;
}
interface AccountSubscription {
  id: string;
  status: string;
  productName: string | null;
  quantity: number;
  priceCents: number;
  currency: string;
  currentPeriodEnd: string | null;
}
interface PaymentMethod {
  id: string;
  type: string;
  cardType: string | null;
  lastFour: string | null;
  isDefault: boolean;
}
interface Credits {
  balances: { currency: string; balanceCents: number }[];
  entries: {
    id: string;
    kind: string;
    amountCents: number;
    currency: string;
    status: string;
    createdAt: string;
  }[];
}

function CreditsTab({ id }: { id: string }) {
  const { data, error } = useApi<Credits>(`/accounts/${id}/credits`);
  return (
    <>
      <ErrorNote error={error} />
      <Title order={2} size="h4" my="sm">
        Balances: {data?.balances.map((b) => money(b.balanceCents, b.currency)).join(', ') || 'none'}
      </Title>
      <DataTable
        rows={data?.entries ?? []}
        caption="Credit entries"
        keyOf={(e) => e.id}
        columns={[
          { label: 'Kind', render: (e) => e.kind },
          { label: 'Amount', render: (e) => money(e.amountCents, e.currency) },
          { label: 'Status', render: (e) => <Status value={e.status} /> },
          { label: 'When', render: (e) => when(e.createdAt) },
        ]}
      />
    </>
  );
}

function EntitlementsTab({ id }: { id: string }) {
  const { data, error } = useApi<{ entitlements: Record<string, unknown> }>(`/accounts/${id}/entitlements`);
  return (
    <>
      <ErrorNote error={error} />
      <Code block mt="sm">
        {JSON.stringify(data?.entitlements ?? {}, null, 2)}
      </Code>
    </>
  );
}

function AccountTabs({ id }: { id: string }) {
  return (
    <Tabs defaultValue="orders" keepMounted={false}>
      <Tabs.List>
        <Tabs.Tab value="orders">Orders</Tabs.Tab>
        <Tabs.Tab value="invoices">Invoices</Tabs.Tab>
        <Tabs.Tab value="subscriptions">Subscriptions</Tabs.Tab>
        <Tabs.Tab value="methods">Payment methods</Tabs.Tab>
        <Tabs.Tab value="credits">Credits</Tabs.Tab>
        <Tabs.Tab value="entitlements">Entitlements</Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="orders">
        <SubList<Order>
          title="Orders"
          path={`/orders?organizationId=${id}&limit=50`}
          columns={orderColumns}
          keyOf={(o) => o.id}
        />
      </Tabs.Panel>
      <Tabs.Panel value="invoices">
        <SubList<Invoice>
          title="Invoices"
          path={`/accounts/${id}/invoices?limit=50`}
          keyOf={(i) => i.id}
          columns={[
            { label: 'Invoice', render: (i) => <Mono>{i.invoiceNumber ?? i.id}</Mono> },
            { label: 'Status', render: (i) => <Status value={i.status} /> },
            { label: 'Amount', render: (i) => money(i.amountCents, i.currency) },
            { label: 'Balance', render: (i) => money(i.balanceCents, i.currency) },
            { label: 'Due', render: (i) => i.dueDate ?? '—' },
          ]}
        />
      </Tabs.Panel>
      <Tabs.Panel value="subscriptions">
        <SubList<AccountSubscription>
          title="Subscriptions"
          path={`/accounts/${id}/subscriptions?limit=50`}
          keyOf={(s) => s.id}
          columns={[
            {
              label: 'Product',
              render: (s) => <LinkTo to={href('subscriptions', s.id)}>{s.productName ?? s.id}</LinkTo>,
            },
            { label: 'Status', render: (s) => <Status value={s.status} /> },
            { label: 'Quantity', render: (s) => s.quantity },
            { label: 'Price', render: (s) => money(s.priceCents, s.currency) },
            { label: 'Period ends', render: (s) => when(s.currentPeriodEnd) },
          ]}
        />
      </Tabs.Panel>
      <Tabs.Panel value="methods">
        <SubList<PaymentMethod>
          title="Payment methods"
          path={`/accounts/${id}/payment-methods?limit=50`}
          keyOf={(m) => m.id}
          columns={[
            { label: 'Type', render: (m) => `${m.type}${m.cardType ? ` ${m.cardType}` : ''}` },
            { label: 'Number', render: (m) => (m.lastFour ? `•••• ${m.lastFour}` : '—') },
            { label: 'Default', render: (m) => (m.isDefault ? 'yes' : 'no') },
          ]}
        />
      </Tabs.Panel>
      <Tabs.Panel value="credits">
        <CreditsTab id={id} />
      </Tabs.Panel>
      <Tabs.Panel value="entitlements">
        <EntitlementsTab id={id} />
      </Tabs.Panel>
    </Tabs>
  );
}

export function CustomersPage({ id }: { id?: string | undefined }) {
  if (id)
    return (
      <ResourceDetail<Account>
        path={`/accounts/${id}`}
        back={{ href: href('customers'), label: 'Customers' }}
        title={(a) => a.name}
      >
        {(a) => (
          <>
            <Fields
              items={[
                ['Email', a.email ?? '—'],
                ['External id', a.externalId ?? '—'],
                ['Industry', a.industry ?? '—'],
                ['Created', when(a.createdAt)],
              ]}
            />
            <AccountTabs id={a.id} />
          </>
        )}
      </ResourceDetail>
    );
  return (
    <>
      <PageTitle>Customers</PageTitle>
      <ResourceList<Account>
        path="/accounts"
        caption="Customer accounts"
        keyOf={(a) => a.id}
        filters={[
          { name: 'q', label: 'Name or email', placeholder: 'Initech' },
          { name: 'tag', label: 'Tag', placeholder: 'tier:gold' },
        ]}
        columns={[
          { label: 'Name', render: (a) => <LinkTo to={href('customers', a.id)}>{a.name}</LinkTo> },
          { label: 'Email', render: (a) => a.email ?? '—' },
          { label: 'Created', render: (a) => when(a.createdAt) },
        ]}
      />
    </>
  );
}
