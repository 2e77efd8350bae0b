// An event's stored columns read as values: its recurrence lines, and what its cost text says (values and currency).
// Free of Prisma and of the schema builder, so that the benchmark's floor can import it without loading either.
//
// How an event's recurrence is stored: its lines joined by newlines in `recurrence` ('' for an event on its own and
// for an occurrence), and `isSeriesMaster`, which lists filter and index on since `recurrence` may outgrow an index
// entry. Every write of `recurrence` takes both columns from recurrenceColumns, so they cannot disagree.
//
// Not a database trigger: SQLite's triggers cannot set the row being written (only update it again afterwards), and
// a generated column cannot be declared in the Prisma schema, so `migrate:check` would see it as drift.

import type { SiteCurrency } from '../../config.js';

/** The columns that store a series' recurrence lines; no lines make an event that is not a series master. */
export function recurrenceColumns(lines: readonly string[]): { recurrence: string; isSeriesMaster: boolean } {
  const recurrence = lines.join('\n');
  return { recurrence, isSeriesMaster: recurrence !== '' };
}

/** The lines of a stored `recurrence`. */
export const recurrenceLines = (stored: string): string[] => (stored === '' ? [] : stored.split('\n'));

/** What The Events Calendar derives from a cost text such as `$10 - $20`, `20€` or `Free`. */
export interface CostDetails {
  currencySymbol: string;
  currencyCode: string;
  currencyPosition: string;
  values: string[];
}

const NUMBER = /\d+(?:[.,]\d+)?/g;

/** The numeric values in a cost text, ascending; `Free` counts as 0. */
export function costValues(cost: string): string[] {
  const numbers = (cost.match(NUMBER) ?? []).map((n) => n.replace(',', '.'));
  if (/\bfree\b/i.test(cost)) numbers.push('0');
  return [...new Set(numbers)].sort((a, b) => Number(a) - Number(b));
}

/** Guesses the currency symbol and where it stands from the cost text, as the original does (`20$` → `$`, postfix). */
export function guessCurrency(cost: string): { symbol: string; position: 'prefix' | 'postfix' } | null {
  const text = cost.trim();
  const prefix = /^([^\d\s.,-]+)\s*\d/.exec(text);
  if (prefix && !/^free$/i.test(prefix[1]!)) return { symbol: prefix[1]!, position: 'prefix' };
  const postfix = /\d\s*([^\d\s.,-]+)$/.exec(text);
  if (postfix) return { symbol: postfix[1]!, position: 'postfix' };
  return null;
}

const AMOUNT = String.raw`\d+(?:[.,]\d+)?`;
/** An amount or a range of amounts and nothing else (once the currency symbol is taken out). */
const PLAIN_AMOUNTS = new RegExp(`^${AMOUNT}(?:\\s*(?:-|–|—|,|to)\\s*${AMOUNT})*$`, 'i');

/**
 * The cost as TEC shows it (REST `cost`), with the currency symbol in place: a plain amount or range is rebuilt from
 * the parsed values, lowest and highest joined by an en dash (`$10 – $25`), 0 reads "Free", and the symbol and its
 * position are the event's or, where it sets none, the site's (TEC's `tribe_format_currency`). Any other text is
 * kept, with the event's own symbol put beside its numbers when the text lacks it.
 */
export function formattedCost(
  cost: string,
  details: Pick<CostDetails, 'currencySymbol' | 'currencyPosition' | 'values'>,
  site: SiteCurrency,
): string {
  const text = cost.trim();
  if (text === '') return '';
  const own = details.currencySymbol;
  const bare = (own ? text.split(own).join('') : text).trim();
  const amounts = details.values.filter((value) => /^\d+(\.\d+)?$/.test(value));
  const symbol = own || site.symbol;
  const position = details.currencyPosition || site.position;
  const withSymbol = (amount: string) =>
    !symbol ? amount : position === 'postfix' ? `${amount}${symbol}` : `${symbol}${amount}`;
  if (PLAIN_AMOUNTS.test(bare) && amounts.length > 0) {
    const label = (amount: string) => (Number(amount) === 0 ? 'Free' : withSymbol(amount));
    const low = amounts[0]!;
    const high = amounts[amounts.length - 1]!;
    // A single amount keeps the way it was written (`6,50`).
    if (low === high) return Number(low) === 0 ? 'Free' : withSymbol(new RegExp(`^${AMOUNT}$`).test(bare) ? bare : low);
    return `${label(low)} – ${label(high)}`;
  }
  if (!own || text.includes(own)) return text;
  return text.replace(new RegExp(AMOUNT, 'g'), (n) => withSymbol(n));
}
