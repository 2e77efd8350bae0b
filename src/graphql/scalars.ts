import { GraphQLError, Kind } from 'graphql';
import { plainText, safeHtml } from '../content/sanitize.js';
import { builder } from './builder.js';

builder.scalarType('DateTime', {
  description: 'An exact instant, ISO 8601 in UTC (`2025-03-01T17:00:00.000Z`).',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => parseIsoInstant(value),
  parseLiteral: (ast) => parseIsoInstant(ast.kind === Kind.STRING ? ast.value : null),
});

builder.scalarType('WallClock', {
  description: 'A wall-clock date and time without offset, `YYYY-MM-DD HH:MM:SS`, read in the time zone next to it.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) {
      throw new GraphQLError('WallClock must be a string like "2025-03-01 18:00:00"');
    }
    return value;
  },
});

builder.scalarType('DateInput', {
  description:
    'A date as integrations send it: `2025-03-01`, `2025-03-01 18:00:00`, ISO 8601 with or without offset, a Unix ' +
    'timestamp, or a relative form (`now`, `tomorrow 9am`, `next wednesday 4pm`, `+1 day`). Forms without an offset ' +
    "are read in the event's time zone (for events) or the site time zone.",
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value === 'number' && Number.isInteger(value)) return String(value);
    if (typeof value !== 'string' || value.trim() === '')
      throw new GraphQLError('DateInput must be a non-empty string');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING && ast.value.trim() !== '') return ast.value;
    if (ast.kind === Kind.INT) return ast.value;
    throw new GraphQLError('DateInput must be a non-empty string');
  },
});

builder.scalarType('HTML', {
  description:
    'HTML. On input it is reduced to the tags and attributes WordPress allows in post content: scripts, styles, ' +
    'frames, event handlers and URLs with other than web, mail and similar link schemes (javascript:, data:) are removed.',
  serialize: (value) => value,
  parseValue: (value) => safeHtml(textInput('HTML', value)),
});

builder.scalarType('PlainText', {
  description: 'Text without markup. On input, HTML tags are removed and character references decoded (`&amp;` → `&`).',
  serialize: (value) => value,
  parseValue: (value) => plainText(textInput('PlainText', value)),
});

function textInput(scalar: string, value: unknown): string {
  if (typeof value !== 'string') throw new GraphQLError(`${scalar} must be a string`);
  return value;
}

function parseIsoInstant(value: unknown): Date {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new GraphQLError('DateTime must be an ISO 8601 instant with offset, e.g. "2025-03-01T17:00:00Z"');
}
