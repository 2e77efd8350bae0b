import { Role } from '../../db/generated/prisma/enums.js';
import { builder } from '../builder.js';

export const RoleEnum = builder.enumType(Role, { name: 'Role', description: 'WordPress role of a user.' });

export const UserType = builder.prismaObject('User', {
  description: 'A person who writes records (their author).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    login: t.exposeString('login'),
    displayName: t.exposeString('displayName'),
    role: t.expose('role', { type: RoleEnum }),
  }),
});
