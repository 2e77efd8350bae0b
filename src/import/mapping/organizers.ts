import { requiredText, text } from '../remote.js';
import { importedImage, postFields, sameNameAndSlug, type RecordKind } from './kind.js';

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

  twins: (db, input) => sameNameAndSlug(input, (where) => db.organizer.findMany({ where, select: { id: true } })),
};
