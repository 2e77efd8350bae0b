import { requiredText, text } from '../remote.js';
import { expectedSlug, importedImage, postFields, storedName, type RecordKind } from './kind.js';

export const organizerKind: RecordKind = {
  type: 'organizer',
  route: '/organizers',
  listKey: 'organizers',
  hasStatus: true,
  listQuery: {},
  mutations: { create: 'createOrganizer', update: 'updateOrganizer', inputType: 'OrganizerInput' },

  async toInput(remote, links) {
    return {
      name: requiredText(remote, 'organizer'),
      ...postFields(remote),
      phone: text(remote, 'phone'),
      website: text(remote, 'website'),
      email: text(remote, 'email'),
      image: await importedImage(remote, links),
    };
  },

  async twins(db, input) {
    const name = storedName(input.name);
    const rows = await db.organizer.findMany({
      where: { slug: expectedSlug(input, name), name },
      select: { id: true },
    });
    return rows.map((row) => row.id);
  },
};
