import { Title } from '@mantine/core';
import { money, when } from '../api';
import { DataTable, Fields, LinkTo, Mono, PageTitle, Status } from '../components/bits';
import { ResourceDetail } from '../components/detail';
import { ResourceList } from '../components/resource-list';
import { href } from '../router';

interface OrderItem {
  productId: string;
  productName: string;
  quantity: number;
  priceCents: number;
  totalCents: number;
}
export interface Order {
  id: string;
  orderNumber: string;
  status: string;
  paymentStatus: string;
  totalCents: number;
  currency: string;
  organizationId: string | null;
  invoiceId: string | null;
  items: OrderItem[];
  createdAt: string;
}

export const orderColumns = [
  { label: 'Number', render: (o: Order) => <LinkTo to={href('orders', o.id)}>{o.orderNumber}</LinkTo> },
  { label: 'Status', render: (o: Order) => <Status value={o.status} /> },
  { label: 'Payment', render: (o: Order) => <Status value={o.paymentStatus} /> },
  { label: 'Total', render: (o: Order) => money(o.totalCents, o.currency) },
  { label: 'Created', render: (o: Order) => when(o.createdAt) },
];

export function OrdersPage({ id }: { id?: string | undefined }) {
  if (id)
    return (
      <ResourceDetail<Order>
        path={`/orders/${id}`}
        back={{ href: href('orders'), label: 'Orders' }}
        title={(o) => `Order ${o.orderNumber}`}
      >
        {(o) => (
          <>
            <Fields
              items={[
                ['Status', <Status key="s" value={o.status} />],
                ['Payment status', <Status key="p" value={o.paymentStatus} />],
                ['Total', money(o.totalCents, o.currency)],
                [
                  'Account',
                  o.organizationId ? (
                    <LinkTo to={href('customers', o.organizationId)}>{o.organizationId}</LinkTo>
                  ) : (
                    '—'
                  ),
                ],
                ['Invoice', o.invoiceId ? <Mono>{o.invoiceId}</Mono> : '—'],
                ['Created', when(o.createdAt)],
              ]}
            />
            <Title order={2} size="h4" mb="sm">
              Lines
            </Title>
            <DataTable
              rows={o.items}
              caption="Order lines"
              keyOf={(l, i) => `${l.productId}-${i}`}
              columns={[
                {
                  label: 'Product',
                  render: (l) => (
                    <LinkTo to={href('catalog', 'products', l.productId)}>{l.productName}</LinkTo>
                  ),
                },
                { label: 'Quantity', render: (l) => l.quantity },
                { label: 'Price', render: (l) => money(l.priceCents, o.currency) },
                { label: 'Total', render: (l) => money(l.totalCents, o.currency) },
              ]}
            />
          </>
        )}
      </ResourceDetail>
    );
  return (
    <>
      <PageTitle>Orders</PageTitle>
      <ResourceList<Order>
        path="/orders"
        caption="Orders"
        keyOf={(o) => o.id}
        columns={orderColumns}
        filters={[
          { name: 'number', label: 'Order number', placeholder: 'ORD-1042' },
          { name: 'status', label: 'Status', placeholder: 'pending' },
          {
            name: 'paymentStatus',
            label: 'Payment status',
            options: ['unpaid', 'partially_paid', 'paid', 'partially_refunded', 'refunded'],
          },
        ]}
      />
    </>
  );
}
