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
