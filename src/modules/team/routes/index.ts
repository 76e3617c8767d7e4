import type { DeclaredRoute } from '../../../http/declared-route.js';
import { createUserRoute } from './create-user.js';
import { getUserRoute } from './get-user.js';
import { invitationRoutes } from './invitations.js';
import { listRolesRoute } from './list-roles.js';
import { listUsersRoute } from './list-users.js';
import { resetUserPasswordRoute } from './reset-user-password.js';
import { revokeUserSessionsRoute } from './revoke-user-sessions.js';
import { sessionRoutes } from './session-routes.js';
import { updateUserRoute } from './update-user.js';

export const teamRoutes: DeclaredRoute[] = [
  ...sessionRoutes,
  listRolesRoute,
  listUsersRoute,
  createUserRoute,
  getUserRoute,
  updateUserRoute,
  resetUserPasswordRoute,
  revokeUserSessionsRoute,
  ...invitationRoutes,
];
