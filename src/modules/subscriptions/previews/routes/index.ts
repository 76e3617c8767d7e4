import type { DeclaredRoute } from '../../../../http/declared-route.js';
import { previewAddOnRoute } from './preview-add-on.js';
import { previewCancellationRoute } from './preview-cancellation.js';
import { previewPlanChangeRoute } from './preview-plan-change.js';

export const previewRoutes: DeclaredRoute[] = [
  previewPlanChangeRoute,
  previewAddOnRoute,
  previewCancellationRoute,
];
