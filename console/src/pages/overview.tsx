import { Paper, SimpleGrid, Text, Title } from '@mantine/core';
import { money } from '../api';
import { DataTable, ErrorNote, LinkTo, Loading, PageTitle, Status } from '../components/bits';
import { useApi } from '../hooks';
import { href } from '../router';

interface Window {
  count: number;
  amounts: { currency: string; amountCents: number }[];
}
interface Day {
  date: string;
  paymentsCents: number;
  refundsCents: number;
  netCents: number;
}
interface Overview {
  asOf: string;
  orders: { last24Hours: Window; last30Days: Window };
  payments: { last24Hours: Window; last30Days: Window };
  refunds: { last24Hours: Window; last30Days: Window };
  revenue: { currency: string; netCents: number; days: Day[] }[];
  checkoutSessions: { status: string; count: number }[];
  webhooks: {
    endpoints: number;
    activeEndpoints: number;
    failingEndpoints: {
      id: string;
      url: string;
      isActive: boolean;
      failingDeliveries: number;
      deadLetters: number;
    }[];
    pendingDeliveries: number;
    deadLetters: number;
  };
  openIntents: { pending: number; attention: number };
}

const amounts = (w: Window) => w.amounts.map((a) => money(a.amountCents, a.currency)).join(' + ') || money(0);

function Stat({ label, window24, window30 }: { label: string; window24: Window; window30: Window }) {
  return (
    <Paper withBorder p="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {window24.count}{' '}
        <Text span size="sm" c="dimmed">
          in 24 h
        </Text>
      </Text>
      <Text size="sm">{amounts(window24)}</Text>
      <Text size="sm" c="dimmed" mt={4}>
        30 days: {window30.count} · {amounts(window30)}
      </Text>
    </Paper>
  );
}

/** Net revenue per day as bars: an SVG image with a text alternative (the totals), no chart library. */
function RevenueChart({ series }: { series: Overview['revenue'][number] }) {
  const width = 600;
  const height = 160;
  const max = Math.max(1, ...series.days.map((d) => Math.abs(d.netCents)));
  const bar = width / series.days.length;
  const label = `Net revenue in ${series.currency} per day for 30 days, ${money(series.netCents, series.currency)} in all`;
  return (
    <svg viewBox={`0 0 ${width} ${height + 20}`} width="100%" role="img" aria-label={label}>
      <title>{label}</title>
      {series.days.map((d, i) => {
        const h = (Math.abs(d.netCents) / max) * height;
        return (
          <rect
            key={d.date}
            x={i * bar + 2}
            y={height - h}
            width={bar - 4}
            height={Math.max(h, 1)}
            fill={d.netCents < 0 ? '#c92a2a' : '#1864ab'}
          >
            <title>{`${d.date}: ${money(d.netCents, series.currency)}`}</title>
          </rect>
        );
      })}
      <text x={0} y={height + 16} fontSize="12" fill="#333">
        {series.days[0]?.date}
      </text>
      <text x={width} y={height + 16} fontSize="12" fill="#333" textAnchor="end">
        {series.days[series.days.length - 1]?.date}
      </text>
    </svg>
  );
}

export function OverviewPage() {
  const { data, error, loading } = useApi<Overview>('/admin/overview');
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <ErrorNote error={error} />
      {loading && !data && <Loading />}
      {data && (
        <>
          <SimpleGrid cols={{ base: 1, sm: 3 }} mb="md">
            <Stat label="Orders" window24={data.orders.last24Hours} window30={data.orders.last30Days} />
            <Stat label="Payments" window24={data.payments.last24Hours} window30={data.payments.last30Days} />
            <Stat label="Refunds" window24={data.refunds.last24Hours} window30={data.refunds.last30Days} />
          </SimpleGrid>
          <Paper withBorder p="md" mb="md">
            <Title order={2} size="h4" mb="sm">
              Revenue, last 30 days
            </Title>
            {data.revenue.length === 0 ? (
              <Text c="dimmed">No payments in the last 30 days.</Text>
            ) : (
              data.revenue.map((s) => <RevenueChart key={s.currency} series={s} />)
            )}
          </Paper>
          <SimpleGrid cols={{ base: 1, md: 3 }}>
            <Paper withBorder p="md">
              <Title order={2} size="h4" mb="sm">
                Checkout sessions
              </Title>
              <DataTable
                rows={data.checkoutSessions}
                caption="Checkout sessions by status"
                keyOf={(r) => r.status}
                columns={[
                  { label: 'Status', render: (r) => <Status value={r.status} /> },
                  { label: 'Sessions', render: (r) => r.count },
                ]}
                empty="No checkout sessions yet."
              />
            </Paper>
            <Paper withBorder p="md">
              <Title order={2} size="h4" mb="sm">
                Webhook health
              </Title>
              <Text>
                {data.webhooks.activeEndpoints} of {data.webhooks.endpoints} endpoints enabled ·{' '}
                {data.webhooks.pendingDeliveries} pending · {data.webhooks.deadLetters} dead letters
              </Text>
              {data.webhooks.failingEndpoints.map((e) => (
                <Text key={e.id} size="sm">
                  <LinkTo to={href('webhooks', e.id)}>{e.url}</LinkTo>: {e.failingDeliveries} failing,{' '}
                  {e.deadLetters} dead
                </Text>
              ))}
            </Paper>
            <Paper withBorder p="md">
              <Title order={2} size="h4" mb="sm">
                Open intents
              </Title>
              <Text>
                {data.openIntents.pending} running · {data.openIntents.attention} need attention
              </Text>
            </Paper>
          </SimpleGrid>
        </>
      )}
    </>
  );
}
