/** Recorded from the real route (ids replaced by fixed ones; a commerce key's view). */
export const catalogSearchExample = {
  data: [
    {
      productId: '0190b000-0000-7000-8000-000000000003',
      title: 'Chef knife 20 cm',
      slug: null,
      locale: 'en',
      excerpt: 'A forged **steel** blade for everyday cutting.',
      brand: 'Acme',
      category: 'Home & Garden > Kitchen & Dining > Knives',
      condition: null,
      image: {
        url: 'https://cdn.acme.example/knife.jpg',
        alt: 'The knife',
      },
      type: 'one_time',
      currency: 'USD',
      listPriceCents: 8900,
      priceCents: 7120,
      availability: 'in_stock',
      available: null,
      score: 1.7599,
    },
  ],
  nextActions: [
    {
      rel: 'createCart',
      method: 'POST',
      href: '/api/v1/carts',
      requiredScope: 'commerce',
      allowed: true,
      operationId: 'createCart',
      arguments: {
        currency: 'USD',
        items: [
          {
            productId: '0190b000-0000-7000-8000-000000000003',
            quantity: 1,
          },
        ],
      },
    },
    {
      rel: 'createOrder',
      method: 'POST',
      href: '/api/v1/orders',
      requiredScope: 'commerce',
      allowed: true,
      operationId: 'createOrder',
      arguments: {
        items: [
          {
            productId: '0190b000-0000-7000-8000-000000000003',
            quantity: 1,
          },
        ],
        currency: 'USD',
      },
    },
    {
      rel: 'productContent',
      method: 'GET',
      href: '/api/v1/products/0190b000-0000-7000-8000-000000000003/content',
      requiredScope: 'read',
      allowed: true,
      operationId: 'getProductContent',
      arguments: {
        id: '0190b000-0000-7000-8000-000000000003',
      },
    },
  ],
  facets: {
    brand: [
      {
        value: 'Acme',
        count: 1,
      },
    ],
    category: [
      {
        value: 'Home & Garden > Kitchen & Dining > Knives',
        count: 1,
      },
    ],
    availability: [
      {
        value: 'in_stock',
        count: 1,
      },
    ],
  },
  meta: {
    limit: 1,
    total: 1,
    nextCursor: null,
  },
};
