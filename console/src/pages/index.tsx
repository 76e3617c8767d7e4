import type { ReactNode } from 'react';
import { PageTitle } from '../components/bits';
import { CatalogPage } from './catalog';
import { CheckoutsPage } from './checkouts';
import { CustomersPage } from './customers';
import { DevelopersPage } from './developers';
import { OrdersPage } from './orders';
import { OverviewPage } from './overview';
import { PaymentsPage } from './payments';
import { SettingsPage } from './settings';
import { SubscriptionsPage } from './subscriptions';
import { TeamPage } from './team';
import { WebhooksPage } from './webhooks';

const PAGES: Record<string, (rest: string[]) => ReactNode> = {
  overview: () => <OverviewPage />,
  customers: (rest) => <CustomersPage id={rest[0]} />,
  orders: (rest) => <OrdersPage id={rest[0]} />,
  subscriptions: (rest) => <SubscriptionsPage id={rest[0]} />,
  payments: (rest) => <PaymentsPage kind={rest[0]} id={rest[1]} />,
  checkouts: (rest) => <CheckoutsPage id={rest[0]} />,
  catalog: (rest) => <CatalogPage kind={rest[0]} id={rest[1]} locale={rest[2]} />,
  webhooks: (rest) => <WebhooksPage id={rest[0]} deliveryId={rest[2]} />,
  developers: (rest) => <DevelopersPage tab={rest[0]} />,
  settings: () => <SettingsPage />,
  team: () => <TeamPage />,
};

export function pageFor(section: string, rest: string[]): ReactNode {
  const page = PAGES[section];
  return page ? page(rest) : <PageTitle>Page not found</PageTitle>;
}
