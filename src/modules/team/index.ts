export {
  createDemoOwner,
  createDemoOwnerIfNoUsers,
  createUserWithPassword,
  DEMO_OWNER_EMAIL,
  demoOwnerSignInLink,
} from './demo-owner.js';
export { ROLE_DEFINITIONS, ROLES, type Role } from './roles.js';
export { hashPassword } from './secrets.js';
export { ConsoleSessionResolver, type LiveSession } from './session-resolver.js';
