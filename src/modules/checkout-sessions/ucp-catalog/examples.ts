// Answers of the catalog routes, as they answer for the tests' shop (ids and the cursor replaced by
// fixed ones); test/agentic/ucp-catalog.test.ts checks them against UCP's schemas.

const VERSION = '2026-04-08';
const KNIFE = '0190b000-0000-7000-8000-000000000003';

const seller = {
  name: 'Acme Kitchen',
  links: [{ type: 'refund_policy', url: 'https://acme.example/returns', title: 'Return policy' }],
};

const variant = {
  id: KNIFE,
  title: 'Chef knife 20 cm',
  description: { markdown: 'A forged **steel** blade for everyday cutting.' },
  price: { amount: 7120, currency: 'USD' },
  list_price: { amount: 8900, currency: 'USD' },
  availability: { available: true, status: 'in_stock' },
  barcodes: [{ type: 'GTIN', value: '4006381333931' }],
  seller,
};

const product = {
  id: KNIFE,
  handle: 'chef-knife-20cm',
  title: 'Chef knife 20 cm',
  description: { markdown: 'A forged **steel** blade for everyday cutting.' },
  categories: [{ value: 'Home & Garden > Kitchen & Dining > Knives', taxonomy: 'merchant' }],
  price_range: { min: { amount: 7120, currency: 'USD' }, max: { amount: 7120, currency: 'USD' } },
  list_price_range: { min: { amount: 8900, currency: 'USD' }, max: { amount: 8900, currency: 'USD' } },
  media: [{ type: 'image', url: 'https://cdn.acme.example/knife.jpg', alt_text: 'The knife' }],
  variants: [variant],
  metadata: {
    product_type: 'one_time',
    language: 'en',
    brand: 'Acme',
    condition: 'new',
    mpn: 'CK-20',
    attributes: { material: 'carbon steel' },
  },
};

const ucp = (capability: string) => ({
  version: VERSION,
  status: 'success',
  capabilities: { [`dev.ucp.shopping.catalog.${capability}`]: [{ version: VERSION }] },
});

export const searchExample = {
  ucp: ucp('search'),
  products: [product],
  pagination: { cursor: 'WzEsImNhdGFsb2dfc2VhcmNoIl0.c2lnbmF0dXJl', has_next_page: true, total_count: 3 },
};

export const lookupExample = {
  ucp: ucp('lookup'),
  products: [{ ...product, variants: [{ ...variant, inputs: [{ id: KNIFE, match: 'exact' }] }] }],
  messages: [{ type: 'info', code: 'not_found', content: '0190b000-0000-7000-8000-00000000dead' }],
};

export const productExample = { ucp: ucp('lookup'), product };
