import { imageUrl, requiredText, text } from '../remote.js';
import { expectedSlug, postFields, storedName, type RecordKind } from './kind.js';

export const organizerKind: RecordKind = {
  type: 'organizer',
  route: '/organizers',
  listKey: 'organizers',
  hasStatus: true,
  listQuery: {},
  mutations: { create: 'createOrganizer', update: 'updateOrganizer', inputType: 'OrganizerInput' },

  async toInput(remote) {
    return {
      name: requiredText(remote, 'organizer'),
      ...postFields(remote),
      phone: text(remote, 'phone'),
      website: text(remote, 'website'),
      email: text(remote, 'email'),
      image: imageUrl(remote),
    };
  },

  async twins(db, input) {
    const name = storedName(input.name);
    const rows = await db.organizer.findMany({ where: { slug: expectedSlug(input, name), name }, select: { id: true } });
    return rows.map((row) => row.id);
  },
};
