import { Type } from 'typebox';
import { EnvironmentSchema } from '../../core/context.js';
import { PermissionSchema } from '../../core/permissions.js';
import { StringEnum } from '../../core/schema.js';
import { ROLES } from './roles.js';
import { MIN_PASSWORD_LENGTH } from './sign-in.js';

const Timestamp = Type.String({ format: 'date-time' });
const Uuid = Type.String({ format: 'uuid' });

export const RoleNameSchema = StringEnum(ROLES, {
  description:
    '`owner`, `admin`, `developer`, `support` or `viewer` (GET /admin/roles lists what each may do).',
});
export const UserStatusSchema = StringEnum(['active', 'disabled'], {
  description: 'A disabled user cannot sign in, and its sessions end.',
});

const Email = Type.String({
  format: 'email',
  minLength: 3,
  maxLength: 254,
  description: 'The address the user signs in with (case-insensitive, unique in the deployment).',
});
const Name = Type.String({ minLength: 1, maxLength: 200, description: 'How the user is shown.' });
const Password = Type.String({
  minLength: MIN_PASSWORD_LENGTH,
  maxLength: 1024,
  description: `At least ${MIN_PASSWORD_LENGTH} characters; stored only as a scrypt hash.`,
});

export const ConsoleUserSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  name: Type.String(),
  role: RoleNameSchema,
  status: UserStatusSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastSignInAt: Type.Union([Timestamp, Type.Null()]),
});

export const ConsoleSessionSchema = Type.Object({
  user: Type.Object({
    id: Uuid,
    email: Type.String(),
    name: Type.String(),
    role: RoleNameSchema,
    status: UserStatusSchema,
  }),
  tenant: Type.Object({ id: Uuid, name: Type.String(), environment: EnvironmentSchema }),
  csrfToken: Type.String({
    description: 'Send it as `X-CSRF-Token` on every POST, PUT, PATCH and DELETE of this session.',
  }),
  expiresAt: Type.String({
    format: 'date-time',
    description: 'When the session ends if unused (12 h idle, 7 days at most).',
  }),
  permissions: Type.Array(PermissionSchema, { description: 'What the role may do.' }),
});

export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  {
    additionalProperties: false,
    examples: [{ email: 'owner@demo.local', password: 'correct horse battery' }],
  },
);

export const RedeemLinkBody = Type.Object(
  {
    token: Type.String({
      minLength: 20,
      maxLength: 100,
      description: 'The token of the link (after `#/link/`).',
    }),
    password: Type.Optional(Password),
    name: Type.Optional(Name),
  },
  {
    additionalProperties: false,
    examples: [{ token: 'q3Zk...', password: 'correct horse battery', name: 'Ada' }],
  },
);

export const ChangePasswordBody = Type.Object(
  { currentPassword: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })), newPassword: Password },
  {
    additionalProperties: false,
    examples: [{ currentPassword: 'correct horse battery', newPassword: 'a longer passphrase' }],
  },
);

export const RoleSchema = Type.Object({
  name: RoleNameSchema,
  description: Type.String(),
  permissions: Type.Array(PermissionSchema),
});

export const LinkSchema = Type.Object({
  url: Type.String({ description: 'The one-time link, shown only now (`<base>/console/#/link/<token>`).' }),
  expiresAt: Timestamp,
});

export const InvitedUserSchema = Type.Object({ user: ConsoleUserSchema, invitation: LinkSchema });

export const CreateUserBody = Type.Object(
  { email: Email, role: RoleNameSchema, name: Type.Optional(Name) },
  { additionalProperties: false, examples: [{ email: 'ada@example.com', role: 'support', name: 'Ada' }] },
);

export const UpdateUserBody = Type.Object(
  { role: Type.Optional(RoleNameSchema), status: Type.Optional(UserStatusSchema), name: Type.Optional(Name) },
  { additionalProperties: false, minProperties: 1, examples: [{ role: 'viewer' }, { status: 'disabled' }] },
);

export const UserParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Console user id.' }),
});

export const InvitationSchema = Type.Object({
  id: Type.String({
    format: 'uuid',
    description: 'The invited user’s id (also its id in /admin/users/{id}).',
  }),
  email: Type.String(),
  name: Type.String(),
  role: RoleNameSchema,
  status: StringEnum(['pending', 'expired'], {
    description: '`expired`: its link no longer works; resend it for a new one.',
  }),
  invitedAt: Timestamp,
  expiresAt: Type.String({ format: 'date-time', description: 'When its newest link stops working.' }),
});

export const InvitationParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The invited user’s id.' }),
});
