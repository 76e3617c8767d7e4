import { money, when } from '../api';
import { Fields, LinkTo, PageTitle, Status } from '../components/bits';
import { ResourceDetail } from '../components/detail';
import { ResourceList } from '../components/resource-list';
import { href } from '../router';

interface CheckoutSession {
  id: string;
  protocol: string;
  status: string;
  currency: string;
  totals: { total: number };
  orderId: string | null;
  paymentSessionId: string | null;
  expiresAt: string;
  createdAt: string;
}

const total = (s: CheckoutSession) => money(s.totals.total, s.currency);

export function CheckoutsPage({ id }: { id?: string | undefined }) {
  if (id)
    return (
      <ResourceDetail<CheckoutSession>
        path={`/checkout-sessions/${id}`}
        back={{ href: href('checkouts'), label: 'Checkout sessions' }}
        title={(s) => `Checkout session (${s.protocol.toUpperCase()})`}
      >
        {(s) => (
          <Fields
            items={[
              ['Status', <Status key="s" value={s.status} />],
              ['Protocol', s.protocol],
              ['Total', total(s)],
              ['Order', s.orderId ? <LinkTo to={href('orders', s.orderId)}>{s.orderId}</LinkTo> : '—'],
              [
                'Payment',
                s.paymentSessionId ? (
                  <LinkTo to={href('payments', 'payment', s.paymentSessionId)}>{s.paymentSessionId}</LinkTo>
                ) : (
                  '—'
                ),
              ],
              ['Expires', when(s.expiresAt)],
            ]}
          />
        )}
      </ResourceDetail>
    );
  return (
    <>
      <PageTitle>Checkout sessions</PageTitle>
      <ResourceList<CheckoutSession>
        path="/checkout-sessions"
        caption="Checkout sessions"
        keyOf={(s) => s.id}
        filters={[
          {
            name: 'status',
            label: 'Status',
            options: ['not_ready', 'ready', 'in_progress', 'requires_escalation', 'completed', 'canceled'],
          },
          { name: 'protocol', label: 'Protocol', options: ['acp', 'ucp'] },
        ]}
        columns={[
          {
            label: 'Session',
            render: (s) => <LinkTo to={href('checkouts', s.id)}>{s.id.slice(0, 8)}</LinkTo>,
          },
          { label: 'Protocol', render: (s) => s.protocol.toUpperCase() },
          { label: 'Status', render: (s) => <Status value={s.status} /> },
          { label: 'Total', render: (s) => total(s) },
          { label: 'Created', render: (s) => when(s.createdAt) },
        ]}
      />
    </>
  );
}
