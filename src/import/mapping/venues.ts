import { flag, numberOrNull, requiredText, text } from '../remote.js';
import { importedImage, locked, postFields, sameNameAndSlug, type RecordKind } from './kind.js';

const ADDRESS_FIELDS = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website'] as const;

export const venueKind: RecordKind = {
  type: 'venue',
  route: '/venues',
  listKey: 'venues',
  hasStatus: true,
  listQuery: {},
  mutations: { create: 'createVenue', update: 'updateVenue', inputType: 'VenueInput' },

  async toInput(remote, links) {
    if (remote.show_map === null && remote.show_map_link === null) throw locked();
    return {
      name: requiredText(remote, 'venue'),
      ...postFields(remote),
      // TEC leaves empty fields out: sending them empty clears what the source no longer has.
      ...Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, text(remote, field)])),
      stateProvince: text(remote, 'stateprovince'),
      showMap: flag(remote, 'show_map'),
      showMapLink: flag(remote, 'show_map_link'),
      latitude: numberOrNull(remote, 'geo_lat'),
      longitude: numberOrNull(remote, 'geo_lng'),
      image: await importedImage(remote, links),
    };
  },

  twins: (db, input) => sameNameAndSlug(input, (where) => db.venue.findMany({ where, select: { id: true } })),
};
