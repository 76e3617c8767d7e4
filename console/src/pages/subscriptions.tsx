import { money, when } from '../api';
import { Fields, LinkTo, PageTitle, Status } from '../components/bits';
import { ResourceDetail } from '../components/detail';
import { ResourceList } from '../components/resource-list';
import { href } from '../router';

interface Subscription {
  id: string;
  productName: string | null;
  status: string;
  quantity: number;
  priceCents: number;
  currency: string;
  billingInterval: string | null;
  organizationId: string | null;
  orderId: string | null;
  currentPeriodEnd: string | null;
  createdAt: string;
}

export function SubscriptionsPage({ id }: { id?: string | undefined }) {
  if (id)
    return (
      <ResourceDetail<Subscription>
        path={`/subscriptions/${id}`}
        back={{ href: href('subscriptions'), label: 'Subscriptions' }}
        title={(s) => `Subscription: ${s.productName ?? s.id}`}
      >
        {(s) => (
          <Fields
            items={[
              ['Status', <Status key="s" value={s.status} />],
              ['Quantity', s.quantity],
              ['Price', `${money(s.priceCents, s.currency)} / ${s.billingInterval ?? 'period'}`],
              [
                'Account',
                s.organizationId ? (
                  <LinkTo to={href('customers', s.organizationId)}>{s.organizationId}</LinkTo>
                ) : (
                  '—'
                ),
              ],
              ['Order', s.orderId ? <LinkTo to={href('orders', s.orderId)}>{s.orderId}</LinkTo> : '—'],
              ['Period ends', when(s.currentPeriodEnd)],
            ]}
          />
        )}
      </ResourceDetail>
    );
  return (
    <>
      <PageTitle>Subscriptions</PageTitle>
      <ResourceList<Subscription>
        path="/subscriptions"
        caption="Subscriptions"
        keyOf={(s) => s.id}
        filters={[
          {
            name: 'status',
            label: 'Status',
            options: ['active', 'pending_change', 'pending_cancellation', 'cancelled'],
          },
          { name: 'accountId', label: 'Account id' },
        ]}
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
    </>
  );
}
