/** A page of a list operation: its items, and with `limit`, `meta.nextCursor` (null on the last page). */
export interface ListPage<Item> {
  data: Item[];
  meta?: { limit: number; nextCursor: string | null } | undefined;
}

/** The page size `for await` asks for when the caller gave no `limit` (the service allows up to 200). */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * The result of a list method: await it for the answer to this one request (the whole list
 * without `limit`, one page with it), or iterate it to walk every item across pages:
 *
 *   for await (const order of client.orders.list({ status: 'pending' })) { ... }
 *
 * Iterating asks for pages of `limit` (default 100) and follows `meta.nextCursor` with the same
 * filters until the last page. Nothing is sent until it is awaited or iterated.
 */
export class ListCall<Page extends ListPage<unknown>>
  implements PromiseLike<Page>, AsyncIterable<Page['data'][number]>
{
  #first: Promise<Page> | undefined;

  constructor(
    private readonly fetchPage: (query: Record<string, unknown>) => Promise<Page>,
    private readonly query: Record<string, unknown> = {},
  ) {}

  // biome-ignore lint/suspicious/noThenProperty: awaiting a list call is its documented use.
  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.#first ??= this.fetchPage(this.query);
    return this.#first.then(onFulfilled, onRejected);
  }

  /** Every page in turn, from the first, following `meta.nextCursor`. */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    let query: Record<string, unknown> = { limit: DEFAULT_PAGE_SIZE, ...this.query };
    for (;;) {
      const page = await this.fetchPage(query);
      yield page;
      const next = page.meta?.nextCursor;
      if (!next) return;
      query = { ...query, cursor: next };
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Page['data'][number], void, undefined> {
    for await (const page of this.pages()) {
      for (const item of page.data) yield item as Awaited<Page['data'][number]>;
    }
  }

  /** Every item of every page, in one array (for lists known to be small). */
  async toArray(): Promise<Page['data'][number][]> {
    const items: Page['data'][number][] = [];
    for await (const page of this.pages()) items.push(...page.data);
    return items;
  }
}
