import type { DeclaredRoute } from '../../../http/declared-route.js';
import { deleteContentEntryRoute } from './delete-content-entry.js';
import { getContentRoute } from './get-content.js';
import { getContentEntryRoute } from './get-content-entry.js';
import { getPublicContentRoute } from './get-public-content.js';
import { listContentEntriesRoute } from './list-content-entries.js';
import { listContentVersionsRoute } from './list-content-versions.js';
import { putContentEntryRoute } from './put-content-entry.js';
import { restoreContentVersionRoute } from './restore-content-version.js';
import { updateContentEntryRoute } from './update-content-entry.js';

export const contentRoutes: DeclaredRoute[] = [
  listContentEntriesRoute,
  putContentEntryRoute,
  getContentEntryRoute,
  updateContentEntryRoute,
  deleteContentEntryRoute,
  listContentVersionsRoute,
  restoreContentVersionRoute,
  getContentRoute,
  getPublicContentRoute,
];
