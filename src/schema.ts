import { type TableLayout, tableLayout } from './db/table-traits.js';
import * as tables from './tables.js';

/**
 * Every table's Citus placement and sealed columns, from the traits each declares next to its
 * definition: what `migrate` distributes and what the sealing pass re-seals.
 */
export const TABLE_LAYOUT: TableLayout = tableLayout(Object.values(tables));
