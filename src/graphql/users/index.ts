import { queryFromInfo } from '@pothos/plugin-prisma';
import { CredentialKind, Role } from '../../db/generated/prisma/enums.js';
import {
  createUser,
  issueCredential,
  LOGIN_PATTERN,
  LOGIN_RULE,
  revokeCredential,
  type IssuedCredential,
} from '../../auth/credentials.js';
import { roleCan } from '../../auth/capabilities.js';
import { refuse, requireCapability } from '../access.js';
import { builder, type Context } from '../builder.js';
import { FieldErrors, NotFoundError } from '../errors.js';
import { databaseIdField, databaseIdOf, globalIdField, NodeInterface, registerNodeReader } from '../shared/node.js';
import { checkEmail } from '../shared/validate.js';
import { offsetConnection } from '../shared/connections.js';
import { screamingCaseValues } from '../shared/enums.js';

export const RoleEnum = builder.enumType('Role', {
  description: 'WordPress role of a user: what it may do (README, "Authentication and roles").',
  values: screamingCaseValues(Role, {
    administrator: 'Everything, users and credentials included.',
    editor: 'Writes, publishes and deletes anyone’s records, and manages categories and tags.',
    author: 'Writes, publishes and deletes their own records.',
    contributor: 'Writes their own records as drafts or pending review; cannot publish.',
    subscriber: 'Reads what is published; writes nothing.',
  }),
});
const CredentialKindEnum = builder.enumType('CredentialKind', {
  description: 'How a credential is sent.',
  values: screamingCaseValues(CredentialKind, {
    application_password: 'An application password, sent with HTTP Basic authentication (`login:password`).',
    bearer_token: 'A bearer token, sent as `Authorization: Bearer <token>`.',
  }),
});

/** A user's login and role: for the user and for those who manage users. */
function mayKnowPrivateDetails(ctx: Context, userId: number): boolean {
  const viewer = ctx.viewer.user;
  return !!viewer && (viewer.id === userId || roleCan(viewer.role, 'manage_users'));
}

export const UserType = builder.prismaObject('User', {
  description: 'A person who writes records (their author).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('User')),
    databaseId: t.exposeInt('id', databaseIdField('User')),
    login: t.string({
      nullable: true,
      description:
        'What the user signs in with (HTTP Basic `login:password`): visible to the user and to administrators; null for others (as WordPress shows readers a display name).',
      resolve: (user, _args, ctx) => (mayKnowPrivateDetails(ctx, user.id) ? user.login : null),
    }),
    displayName: t.exposeString('displayName', {
      description: 'The name shown to people as the author; the login unless another was given.',
    }),
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Visible to the user and to administrators; null for others.',
      resolve: (user, _args, ctx) => (mayKnowPrivateDetails(ctx, user.id) ? user.role : null),
    }),
  }),
});

/**
 * `node(id:)` for users: yourself, anyone for those who manage users, and otherwise only authors of published records
 * (whom every reader meets as `author`).
 */
registerNodeReader('User', async (ctx, id, query) => {
  const viewer = ctx.viewer.user;
  const published = { some: { status: 'publish' as const } };
  const visible =
    viewer && (viewer.id === id || roleCan(viewer.role, 'manage_users'))
      ? {}
      : { OR: [{ events: published }, { venues: published }, { organizers: published }] };
  return ctx.db.user.findFirst({ ...query, where: { id, ...visible } });
});

const CredentialType = builder.prismaObject('Credential', {
  description: 'An application password or bearer token (its secret is never shown again).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('Credential')),
    databaseId: t.exposeInt('id', databaseIdField('Credential')),
    name: t.exposeString('name', {
      description: 'The label given at creation, to tell credentials apart (`phone app`).',
    }),
    kind: t.expose('kind', { type: CredentialKindEnum, description: 'Application password or bearer token.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a request last signed in with it; null if never.',
    }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was revoked (it no longer works); null while it is valid.',
    }),
  }),
});

// Read as a node by its owner, or by those who manage users; anyone else is told there is none.
registerNodeReader('Credential', (ctx, id, query) => {
  const viewer = ctx.viewer.user;
  if (!viewer) refuse(ctx);
  const owned = roleCan(viewer.role, 'manage_users') ? {} : { userId: viewer.id };
  return ctx.db.credential.findFirst({ ...query, where: { id, ...owned } });
});

const IssuedCredentialType = builder.objectRef<IssuedCredential>('IssuedCredential').implement({
  description: 'A credential just created. `secret` is shown this once; only a keyed hash of it is kept.',
  fields: (t) => ({
    id: t.globalID({
      description: 'The credential’s global ID, as `Credential.id` shows it later.',
      resolve: (issued) => ({ type: 'Credential', id: issued.id }),
    }),
    databaseId: t.exposeInt('id', databaseIdField('Credential')),
    name: t.exposeString('name', { description: 'The label it was given.' }),
    kind: t.expose('kind', {
      type: CredentialKindEnum,
      description: 'Application password or bearer token: how to send `secret`.',
    }),
    secret: t.exposeString('secret', { description: 'Application password (HTTP Basic) or bearer token.' }),
  }),
});

/** The user whose credentials are managed: yourself, or anyone for users who manage users. */
function credentialOwner(ctx: Context, userId: number | null | undefined): number {
  const user = ctx.viewer.user;
  if (!user) refuse(ctx);
  if (userId == null || userId === user.id) return user.id;
  if (!roleCan(user.role, 'manage_users')) refuse(ctx);
  return userId;
}

builder.prismaObjectField(UserType, 'credentials', (t) =>
  t.connection(
    {
      type: CredentialType,
      description:
        "The user's application passwords and tokens, oldest first; visible to the user and to administrators.",
      resolve: (user, args, ctx) => {
        credentialOwner(ctx, user.id);
        const where = { userId: user.id };
        return offsetConnection(
          args,
          () => ctx.db.credential.count({ where }),
          ({ offset, limit }) =>
            ctx.db.credential.findMany({ where, orderBy: { id: 'asc' }, skip: offset, take: limit }),
        );
      },
    },
    { description: "A page of a user's credentials, with their number." },
    { description: 'A credential in a page, with its cursor.' },
  ),
);

builder.queryFields((t) => ({
  viewer: t.prismaField({
    type: UserType,
    nullable: true,
    description: 'The signed-in user, or null for an anonymous request.',
    resolve: (query, _root, _args, ctx) =>
      ctx.viewer.user ? ctx.db.user.findUnique({ ...query, where: { id: ctx.viewer.user.id } }) : null,
  }),
  users: t.connection(
    {
      type: UserType,
      description: 'Every user, oldest first (administrators only).',
      resolve: (_root, args, ctx, info) => {
        requireCapability(ctx, 'manage_users');
        return offsetConnection(
          args,
          () => ctx.db.user.count(),
          ({ offset, limit }) =>
            ctx.db.user.findMany({
              ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }),
              orderBy: { id: 'asc' },
              skip: offset,
              take: limit,
            }),
        );
      },
    },
    { description: 'A page of users, with their number.' },
    { description: 'A user in a page, with its cursor.' },
  ),
}));

const UserInput = builder.inputType('UserInput', {
  description: 'A new user. Its credentials are created afterwards (`createApplicationPassword`, `createBearerToken`).',
  fields: (t) => ({
    login: t.string({ required: true, description: `The sign-in name, unique: ${LOGIN_RULE}.` }),
    role: t.field({ type: RoleEnum, required: true, description: 'What the user may do.' }),
    email: t.string({
      description: 'The user’s e-mail address (checked as WordPress’s `is_email` checks it); empty when left out.',
    }),
    displayName: t.string({ description: 'The name shown as author; the login when left out.' }),
  }),
});

const credentialNameArg = 'A label to tell the credential apart later (`phone app`); not empty.';
const credentialUserArg =
  'The database ID of the user it is for; yourself when left out. Others need an administrator.';

builder.mutationFields((t) => ({
  createUser: t.prismaField({
    type: UserType,
    description: 'Administrators only.',
    args: { input: t.arg({ type: UserInput, required: true, description: 'The new user’s login, role and names.' }) },
    resolve: async (query, _root, { input }, ctx) => {
      const errors = new FieldErrors();
      if (!LOGIN_PATTERN.test(input.login)) errors.add('login', LOGIN_RULE);
      checkEmail(errors, 'email', input.email);
      if (await ctx.db.user.findUnique({ where: { login: input.login }, select: { id: true } }))
        errors.add('login', 'is taken');
      errors.throwIfAny();
      requireCapability(ctx, 'manage_users');
      const user = await createUser(
        ctx.db,
        input.login,
        input.role,
        input.email ?? '',
        input.displayName ?? input.login,
      );
      return ctx.db.user.findUniqueOrThrow({ ...query, where: { id: user.id } });
    },
  }),
  createApplicationPassword: t.field({
    type: IssuedCredentialType,
    description: 'For yourself, or (administrators) for `userId`. The password is shown once.',
    args: {
      name: t.arg.string({ required: true, description: credentialNameArg }),
      userId: t.arg.int({ description: credentialUserArg }),
    },
    resolve: async (_root, args, ctx) => issue(ctx, args.userId, 'application_password', args.name),
  }),
  createBearerToken: t.field({
    type: IssuedCredentialType,
    description: 'For yourself, or (administrators) for `userId`. The token is shown once.',
    args: {
      name: t.arg.string({ required: true, description: credentialNameArg }),
      userId: t.arg.int({ description: credentialUserArg }),
    },
    resolve: async (_root, args, ctx) => issue(ctx, args.userId, 'bearer_token', args.name),
  }),
  revokeCredential: t.prismaField({
    type: CredentialType,
    description: 'Revokes one of your credentials (administrators: anyone’s). It stops working at once.',
    args: {
      id: t.arg.id({ required: true, description: 'The credential’s global ID (`id`) or database ID (`databaseId`).' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = databaseIdOf('Credential', args.id, 'id');
      const credential = await ctx.db.credential.findUnique({ where: { id }, select: { userId: true } });
      if (!credential) {
        if (!ctx.viewer.user) refuse(ctx);
        throw new NotFoundError('Credential', id);
      }
      credentialOwner(ctx, credential.userId);
      await revokeCredential(ctx.db, id);
      return ctx.db.credential.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
}));

async function issue(
  ctx: Context,
  userId: number | null | undefined,
  kind: 'application_password' | 'bearer_token',
  name: string,
) {
  const errors = new FieldErrors();
  if (name.trim() === '') errors.add('name', 'must not be empty');
  if (userId != null && !(await ctx.db.user.findUnique({ where: { id: userId }, select: { id: true } })))
    errors.add('userId', `no user with ID ${userId}`);
  errors.throwIfAny();
  return issueCredential(ctx.db, credentialOwner(ctx, userId), kind, name.trim());
}
