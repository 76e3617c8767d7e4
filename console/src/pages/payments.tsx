import { Tabs } from '@mantine/core';
import { money, when } from '../api';
import { Fields, LinkTo, Mono, PageTitle, Status } from '../components/bits';
import { ResourceDetail } from '../components/detail';
import { ResourceList } from '../components/resource-list';
import { SubList } from '../components/sub-list';
import { href, navigate } from '../router';

interface Payment {
  id: string;
  accountId: string;
  amountCents: number;
  refundedCents: number;
  currency: string;
  status: string;
  invoiceId: string | null;
  orderId: string | null;
  createdAt: string;
}
interface Refund {
  id: string;
  paymentSessionId: string;
  amountCents: number;
  currency: string;
  reason: string;
  note: string | null;
  status: string;
  failureMessage: string | null;
  createdAt: string;
}

const refundColumns = [
  {
    label: 'Refund',
    render: (r: Refund) => <LinkTo to={href('payments', 'refunds', r.id)}>{r.id.slice(0, 8)}</LinkTo>,
  },
  { label: 'Amount', render: (r: Refund) => money(r.amountCents, r.currency) },
  { label: 'Reason', render: (r: Refund) => r.reason.replace(/_/g, ' ') },
  { label: 'Status', render: (r: Refund) => <Status value={r.status} /> },
  { label: 'When', render: (r: Refund) => when(r.createdAt) },
];

function PaymentDetail({ id }: { id: string }) {
  return (
    <ResourceDetail<Payment>
      path={`/payments/${id}`}
      back={{ href: href('payments'), label: 'Payments' }}
      title={(p) => `Payment ${money(p.amountCents, p.currency)}`}
    >
      {(p) => (
        <>
          <Fields
            items={[
              ['Status', <Status key="s" value={p.status} />],
              ['Amount', money(p.amountCents, p.currency)],
              [
                'Refunded',
                <span key="r" data-testid="refunded">
                  {money(p.refundedCents, p.currency)}
                </span>,
              ],
              ['Order', p.orderId ? <LinkTo to={href('orders', p.orderId)}>{p.orderId}</LinkTo> : '—'],
              ['Invoice', p.invoiceId ? <Mono>{p.invoiceId}</Mono> : '—'],
              ['Billing account', <Mono key="a">{p.accountId}</Mono>],
              ['Created', when(p.createdAt)],
            ]}
          />
          <SubList<Refund>
            title="Refunds"
            path={`/refunds?paymentId=${p.id}&limit=50`}
            columns={refundColumns}
            keyOf={(r) => r.id}
          />
        </>
      )}
    </ResourceDetail>
  );
}

function RefundDetail({ id }: { id: string }) {
  return (
    <ResourceDetail<Refund>
      path={`/refunds/${id}`}
      back={{ href: href('payments', 'refunds'), label: 'Refunds' }}
      title={(r) => `Refund ${money(r.amountCents, r.currency)}`}
    >
      {(r) => (
        <Fields
          items={[
            ['Status', <Status key="s" value={r.status} />],
            ['Reason', r.reason],
            ['Note', r.note ?? '—'],
            [
              'Payment',
              <LinkTo key="p" to={href('payments', 'payment', r.paymentSessionId)}>
                {r.paymentSessionId}
              </LinkTo>,
            ],
            ['Failure', r.failureMessage ?? '—'],
            ['Created', when(r.createdAt)],
          ]}
        />
      )}
    </ResourceDetail>
  );
}

export function PaymentsPage({ kind, id }: { kind?: string | undefined; id?: string | undefined }) {
  if (kind === 'payment' && id) return <PaymentDetail id={id} />;
  if (kind === 'refunds' && id) return <RefundDetail id={id} />;
  return (
    <>
      <PageTitle>Payments and refunds</PageTitle>
      <Tabs
        value={kind === 'refunds' ? 'refunds' : 'payments'}
        onChange={(v) => navigate('payments', v ?? 'payments')}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="payments">Payments</Tabs.Tab>
          <Tabs.Tab value="refunds">Refunds</Tabs.Tab>
        </Tabs.List>
      </Tabs>
      {kind === 'refunds' ? (
        <ResourceList<Refund>
          path="/refunds"
          caption="Refunds"
          keyOf={(r) => r.id}
          filters={[
            { name: 'status', label: 'Status', options: ['pending', 'succeeded', 'failed'] },
            { name: 'paymentId', label: 'Payment id' },
          ]}
          columns={refundColumns}
        />
      ) : (
        <ResourceList<Payment>
          path="/payments"
          caption="Payments"
          keyOf={(p) => p.id}
          filters={[
            {
              name: 'status',
              label: 'Status',
              options: ['pending', 'processing', 'success', 'failed', 'cancelled'],
            },
            { name: 'accountId', label: 'Billing account id' },
          ]}
          columns={[
            {
              label: 'Payment',
              render: (p) => (
                <LinkTo to={href('payments', 'payment', p.id)}>{money(p.amountCents, p.currency)}</LinkTo>
              ),
            },
            { label: 'Status', render: (p) => <Status value={p.status} /> },
            { label: 'Refunded', render: (p) => money(p.refundedCents, p.currency) },
            {
              label: 'Order',
              render: (p) => (p.orderId ? <LinkTo to={href('orders', p.orderId)}>order</LinkTo> : '—'),
            },
            { label: 'Created', render: (p) => when(p.createdAt) },
          ]}
        />
      )}
    </>
  );
}
