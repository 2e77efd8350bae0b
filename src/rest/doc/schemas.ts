import type { DocKey } from '../i18n/doc/index.js';

/**
 * A JSON schema as OpenAPI 3.1 writes it (JSON Schema 2020-12: `const`, `examples`, type lists with `null`, `$ref`
 * with siblings). `toOpenApi30` rewrites it for OpenAPI 3.0.
 */
export type Schema = { [keyword: string]: unknown };

export type Translate = (key: DocKey) => string;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const WALL_CLOCK = { pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', examples: ['2017-01-05 14:23:36'] };

/**
 * The record shapes the REST routes answer with (src/read/serialize), property by property in the emitted order, with
 * the types actually returned: `author` is a string, date details are zero-padded strings, `cost_details` and the
 * `*_date_details` are objects, an event's `image` is an Image or `false`, its `venue` one venue or a list.
 */
export function componentSchemas(t: Translate): Record<string, Schema> {
  const str = (key: DocKey, extra: Schema = {}): Schema => ({ type: 'string', description: t(key), ...extra });
  const int = (key: DocKey, extra: Schema = {}): Schema => ({ type: 'integer', description: t(key), ...extra });
  const bool = (key: DocKey): Schema => ({ type: 'boolean', description: t(key) });
  const uri = (key: DocKey): Schema => str(key, { format: 'uri' });
  const wallClock = (key: DocKey): Schema => str(key, WALL_CLOCK);
  const described = (key: DocKey, schema: Schema): Schema => ({ ...schema, description: t(key) });
  const object = (
    key: DocKey,
    properties: Record<string, Schema>,
    required: string[] = Object.keys(properties),
  ): Schema => ({
    type: 'object',
    description: t(key),
    properties,
    ...(required.length ? { required } : {}),
  });
  const freeObject = (key: DocKey): Schema => ({ type: 'object', description: t(key), additionalProperties: true });
  const globalIds = {
    global_id: str('prop.post.global_id'),
    global_id_lineage: { type: 'array', items: { type: 'string' }, description: t('prop.post.global_id_lineage') },
  };
  const postDates = {
    date: wallClock('prop.post.date'),
    date_utc: wallClock('prop.post.date_utc'),
    modified: wallClock('prop.post.modified'),
    modified_utc: wallClock('prop.post.modified_utc'),
  };
  const author = str('prop.post.author', { pattern: '^\\d+$', examples: ['1'] });
  const digits = (key: DocKey, count: number): Schema => str(key, { pattern: `^\\d{${count}}$` });
  const dateDetails = (key: DocKey): Schema => described(key, ref('DateDetails'));

  return {
    ImageSize: object(
      'schema.ImageSize',
      {
        width: int('prop.imageSize.width'),
        height: int('prop.imageSize.height'),
        'mime-type': str('prop.imageSize.mime-type'),
        filesize: int('prop.imageSize.filesize'),
        url: uri('prop.imageSize.url'),
      },
      ['url'],
    ),
    CostDetails: object('schema.CostDetails', {
      currency_symbol: str('prop.cost.currency_symbol'),
      currency_code: str('prop.cost.currency_code'),
      currency_position: str('prop.cost.currency_position', { enum: ['prefix', 'postfix', ''] }),
      values: {
        type: 'array',
        items: { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
        description: t('prop.cost.values'),
        examples: [['10', '25.50']],
      },
    }),
    Term: object(
      'schema.Term',
      {
        id: int('prop.term.id'),
        name: str('prop.term.name'),
        slug: str('prop.term.slug'),
        taxonomy: str('prop.term.taxonomy', { enum: ['tribe_events_cat', 'post_tag'] }),
        description: str('prop.term.description'),
        parent: int('prop.term.parent'),
        count: int('prop.term.count'),
        url: uri('prop.term.url'),
        urls: object(
          'prop.term.urls',
          {
            self: uri('prop.term.urls.self'),
            collection: uri('prop.term.urls.collection'),
            up: uri('prop.term.urls.up'),
          },
          ['self', 'collection'],
        ),
        meta: { type: 'array', items: {}, maxItems: 0, description: t('prop.term.meta') },
        term_group: int('prop.term.term_group'),
        term_taxonomy_id: int('prop.term.term_taxonomy_id'),
        filter: str('prop.term.filter', { enum: ['raw'] }),
      },
      ['id', 'name', 'slug', 'taxonomy', 'description', 'count', 'urls'],
    ),
    Image: object(
      'schema.Image',
      {
        url: uri('prop.image.url'),
        id: int('prop.image.id'),
        extension: str('prop.image.extension'),
        width: int('prop.image.width'),
        height: int('prop.image.height'),
        filesize: int('prop.image.filesize'),
        sizes: { type: 'object', description: t('prop.image.sizes'), additionalProperties: ref('ImageSize') },
      },
      ['url', 'id'],
    ),
    DateDetails: object('schema.DateDetails', {
      year: digits('prop.date.year', 4),
      month: digits('prop.date.month', 2),
      day: digits('prop.date.day', 2),
      hour: digits('prop.date.hour', 2),
      minutes: digits('prop.date.minutes', 2),
      seconds: digits('prop.date.seconds', 2),
    }),
    Event: object(
      'schema.Event',
      {
        id: int('prop.post.id'),
        ...globalIds,
        author,
        status: str('prop.post.status'),
        ...postDates,
        url: uri('prop.post.url'),
        rest_url: uri('prop.event.rest_url'),
        title: str('prop.event.title'),
        description: str('prop.post.description'),
        excerpt: str('prop.post.excerpt'),
        slug: str('prop.post.slug'),
        image: { description: t('prop.event.image'), oneOf: [ref('Image'), { const: false }] },
        all_day: bool('prop.event.all_day'),
        start_date: wallClock('prop.event.start_date'),
        start_date_details: dateDetails('prop.event.start_date_details'),
        end_date: wallClock('prop.event.end_date'),
        end_date_details: dateDetails('prop.event.end_date_details'),
        utc_start_date: wallClock('prop.event.utc_start_date'),
        utc_start_date_details: dateDetails('prop.event.utc_start_date_details'),
        utc_end_date: wallClock('prop.event.utc_end_date'),
        utc_end_date_details: dateDetails('prop.event.utc_end_date_details'),
        timezone: str('prop.event.timezone', { examples: ['Europe/Berlin'] }),
        timezone_abbr: str('prop.event.timezone_abbr'),
        cost: str('prop.event.cost'),
        cost_details: described('prop.event.cost_details', ref('CostDetails')),
        website: str('prop.event.website'),
        show_map: bool('prop.event.show_map'),
        show_map_link: bool('prop.event.show_map_link'),
        hide_from_listings: bool('prop.event.hide_from_listings'),
        sticky: bool('prop.event.sticky'),
        featured: bool('prop.event.featured'),
        categories: { type: 'array', items: ref('Term'), description: t('prop.event.categories') },
        tags: { type: 'array', items: ref('Term'), description: t('prop.event.tags') },
        venue: { description: t('prop.event.venue'), oneOf: [ref('Venue'), { type: 'array', items: ref('Venue') }] },
        organizer: { type: 'array', items: ref('Organizer'), description: t('prop.event.organizer') },
        custom_fields: { type: 'array', items: {}, maxItems: 0, description: t('prop.event.custom_fields') },
        json_ld: freeObject('prop.post.json_ld'),
        ticketed: bool('prop.event.ticketed'),
        recurrence: { type: 'array', items: { type: 'string' }, description: t('prop.event.recurrence') },
        recurring_event_id: int('prop.event.recurring_event_id'),
        original_start_date: str('prop.event.original_start_date'),
      },
      // Every key is always there, except json_ld (single reads only).
      [
        'id',
        'global_id',
        'global_id_lineage',
        'author',
        'status',
        'date',
        'date_utc',
        'modified',
        'modified_utc',
        'url',
        'rest_url',
        'title',
        'description',
        'excerpt',
        'slug',
        'image',
        'all_day',
        'start_date',
        'start_date_details',
        'end_date',
        'end_date_details',
        'utc_start_date',
        'utc_start_date_details',
        'utc_end_date',
        'utc_end_date_details',
        'timezone',
        'timezone_abbr',
        'cost',
        'cost_details',
        'website',
        'show_map',
        'show_map_link',
        'hide_from_listings',
        'sticky',
        'featured',
        'categories',
        'tags',
        'venue',
        'organizer',
        'custom_fields',
        'ticketed',
        'recurrence',
      ],
    ),
    Venue: object(
      'schema.Venue',
      {
        id: int('prop.post.id'),
        author,
        status: str('prop.post.status'),
        ...postDates,
        url: uri('prop.post.url'),
        venue: str('prop.venue.venue'),
        description: str('prop.post.description'),
        excerpt: str('prop.post.excerpt'),
        slug: str('prop.post.slug'),
        image: described('prop.venue.image', ref('Image')),
        address: str('prop.venue.address'),
        city: str('prop.venue.city'),
        country: str('prop.venue.country'),
        province: str('prop.venue.province'),
        state: str('prop.venue.state'),
        zip: str('prop.venue.zip'),
        phone: str('prop.venue.phone'),
        website: str('prop.venue.website'),
        stateprovince: str('prop.venue.stateprovince'),
        geo_lat: { type: 'number', format: 'double', minimum: -90, maximum: 90, description: t('prop.venue.geo_lat') },
        geo_lng: {
          type: 'number',
          format: 'double',
          minimum: -180,
          maximum: 180,
          description: t('prop.venue.geo_lng'),
        },
        json_ld: freeObject('prop.post.json_ld'),
        show_map: bool('prop.venue.show_map'),
        show_map_link: bool('prop.venue.show_map_link'),
        ...globalIds,
      },
      ['id', 'show_map', 'show_map_link', 'global_id', 'global_id_lineage'],
    ),
    Organizer: object(
      'schema.Organizer',
      {
        id: int('prop.post.id'),
        author,
        status: str('prop.post.status'),
        ...postDates,
        url: uri('prop.post.url'),
        organizer: str('prop.organizer.organizer'),
        description: str('prop.post.description'),
        excerpt: str('prop.post.excerpt'),
        slug: str('prop.post.slug'),
        image: described('prop.organizer.image', ref('Image')),
        phone: str('prop.organizer.phone'),
        website: str('prop.organizer.website'),
        email: str('prop.organizer.email'),
        json_ld: freeObject('prop.post.json_ld'),
        ...globalIds,
      },
      ['id', 'global_id', 'global_id_lineage'],
    ),
    Error: object(
      'schema.Error',
      {
        code: str('error.code'),
        message: str('error.message'),
        data: object(
          'error.data',
          {
            status: int('error.status'),
            params: {
              description: t('error.params'),
              oneOf: [
                { type: 'array', items: { type: 'string' } },
                { type: 'object', additionalProperties: { type: 'string' } },
              ],
            },
            details: {
              description: t('error.details'),
              oneOf: [
                { type: 'object', additionalProperties: true },
                { type: 'array', maxItems: 0, items: {} },
              ],
            },
          },
          ['status'],
        ),
      },
      ['code', 'message', 'data'],
    ),
  };
}

/** The JSON type of a constant, for OpenAPI 3.0 which has no `const`. */
function typeOfConstant(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string' || typeof value === 'boolean') return typeof value;
  if (Array.isArray(value)) return 'array';
  return 'object';
}

const isNullSchema = (schema: unknown) => !!schema && typeof schema === 'object' && (schema as Schema).type === 'null';

/**
 * Alternatives of which null is one, for OpenAPI 3.0: `nullable` counts only beside a `type` (3.0.3), so it goes on
 * exactly one alternative (two would both match null, which `oneOf` refuses), the first with a type and no `enum` (an
 * `enum` would have to list null as well).
 */
function withOneNullable(options: Schema[]): Schema[] {
  const index = options.findIndex((option) => typeof option.type === 'string' && !('enum' in option));
  if (index < 0) throw new Error(`No alternative can be made nullable for OpenAPI 3.0: ${JSON.stringify(options)}`);
  return options.map((option, i) => (i === index ? { ...option, nullable: true } : option));
}

/**
 * Rewrites a 3.1 schema for OpenAPI 3.0: `type: [t, 'null']` becomes `type: t, nullable: true`, and a null among
 * alternatives makes one of the others nullable (below); `const` becomes a one-value `enum`, `examples` becomes
 * `example`, and a `$ref` with siblings is wrapped in `allOf` (3.0 ignores siblings of `$ref`).
 */
export function toOpenApi30(schema: Schema): Schema {
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    switch (keyword) {
      case 'properties':
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, Schema>).map(([name, sub]) => [name, toOpenApi30(sub)]),
        );
        break;
      case 'items':
      case 'not':
        out[keyword] = toOpenApi30(value as Schema);
        break;
      case 'additionalProperties':
        out[keyword] = typeof value === 'object' ? toOpenApi30(value as Schema) : value;
        break;
      case 'oneOf':
      case 'anyOf':
      case 'allOf': {
        const options = value as Schema[];
        const kept = options.filter((option) => !isNullSchema(option)).map(toOpenApi30);
        out[keyword] = kept.length < options.length ? withOneNullable(kept) : kept;
        break;
      }
      case 'type':
        if (Array.isArray(value)) {
          const types = value.filter((type) => type !== 'null');
          const options = types.map((type) => ({ type }) as Schema);
          const nullable = types.length < value.length;
          if (types.length === 1) Object.assign(out, options[0], nullable ? { nullable: true } : {});
          else out.oneOf = nullable ? withOneNullable(options) : options;
        } else out.type = value;
        break;
      case 'const': {
        const type = typeOfConstant(value);
        if (type && !('type' in schema)) out.type = type;
        out.enum = [value];
        break;
      }
      case 'examples':
        out.example = (value as unknown[])[0];
        break;
      default:
        out[keyword] = value;
    }
  }
  if ('$ref' in out && Object.keys(out).length > 1) {
    const { $ref, ...siblings } = out;
    return { allOf: [{ $ref }], ...siblings };
  }
  return out;
}
