/**
 * The measured comparison behind the choice of rrule for RFC 5545 expansion (docs/recurring-events.md):
 * `npx tsx scripts/compare-recurrence-libraries.ts` (ical.js is a dev dependency, rrule a dependency).
 *
 * Both libraries expand in floating (wall-clock) time; luxon turns each local start into an instant in the zone.
 * Correctness: a weekly 10:00 Europe/Berlin series across both DST changes of 2027, the last Friday of each month
 * (BYDAY=FR;BYSETPOS=-1), and COUNT with INTERVAL. Speed: 100 expansions of a daily rule over 5 years.
 */
import ICAL from 'ical.js';
import { DateTime } from 'luxon';

const ZONE = 'Europe/Berlin';
const CASES = [
  {
    name: 'weekly 10:00 over DST',
    dtstart: '2027-03-01T10:00:00',
    rule: 'FREQ=WEEKLY;BYDAY=MO;UNTIL=20271115T000000',
    expect: (n: number, all: string[]) =>
      n === 37 &&
      all.includes('2027-03-29T10:00:00') &&
      all.includes('2027-11-01T10:00:00') &&
      all.every((s) => s.includes('T10:00:00')),
  },
  {
    name: 'last Friday (BYSETPOS=-1)',
    dtstart: '2027-01-29T18:00:00',
    rule: 'FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1;COUNT=4',
    expect: (_n: number, all: string[]) =>
      all.join() === ['2027-01-29', '2027-02-26', '2027-03-26', '2027-04-30'].map((d) => `${d}T18:00:00`).join(),
  },
  // RFC 5545 leaves a DTSTART off the rule undefined; ical.js (like Google Calendar) keeps it as the first occurrence.
  {
    name: 'DTSTART off the rule stays first',
    dtstart: '2027-01-01T18:00:00',
    rule: 'FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1;COUNT=2',
    expect: (_n: number, all: string[]) => all.join() === '2027-01-01T18:00:00,2027-01-29T18:00:00',
  },
  {
    name: 'every 2nd day COUNT=5',
    dtstart: '2027-12-30T09:00:00',
    rule: 'FREQ=DAILY;INTERVAL=2;COUNT=5',
    expect: (_n: number, all: string[]) => all.at(-1) === '2028-01-07T09:00:00',
  },
  {
    name: '31st of months (skips short months)',
    dtstart: '2027-01-31T12:00:00',
    rule: 'FREQ=MONTHLY;COUNT=3',
    expect: (_n: number, all: string[]) => all.join() === '2027-01-31T12:00:00,2027-03-31T12:00:00,2027-05-31T12:00:00',
  },
];

function withIcal(dtstart: string, rule: string, limit = 100000): string[] {
  const start = ICAL.Time.fromDateTimeString(dtstart);
  const iterator = ICAL.Recur.fromString(rule).iterator(start);
  const out: string[] = [];
  for (let next = iterator.next(); next && out.length < limit; next = iterator.next())
    out.push(next.toString().slice(0, 19));
  return out;
}

async function withRrule(dtstart: string, rule: string, limit = 100000): Promise<string[] | null> {
  try {
    const { RRule } = await import('rrule' as string);
    const floating = new Date(`${dtstart}Z`);
    const parsed = RRule.fromString(
      `DTSTART:${dtstart.replace(/[-:]/g, '')}Z\nRRULE:${rule.replace(/UNTIL=(\d{8}T\d{6})$/, 'UNTIL=$1Z')}`,
    );
    void floating;
    return (parsed.all((_d: Date, i: number) => i < limit) as Date[]).map((d) => d.toISOString().slice(0, 19));
  } catch {
    return null;
  }
}

const toInstants = (locals: string[]) => locals.map((local) => DateTime.fromISO(local, { zone: ZONE }).toUTC().toISO());

for (const library of ['ical.js', 'rrule'] as const) {
  const expand = library === 'ical.js' ? async (d: string, r: string, l?: number) => withIcal(d, r, l) : withRrule;
  if ((await expand('2027-01-01T00:00:00', 'FREQ=DAILY;COUNT=1')) === null) {
    console.log(`${library}: not installed`);
    continue;
  }
  for (const c of CASES) {
    const all = (await expand(c.dtstart, c.rule))!;
    console.log(
      `${library} ${c.name}: ${c.expect(all.length, all) ? 'right' : `WRONG (${all.length}: ${all.slice(0, 3).join(' ')} … ${all.at(-1)})`}`,
    );
  }
  let started = performance.now();
  for (let i = 0; i < 100; i += 1) await expand('2027-01-01T10:00:00', 'FREQ=DAILY;UNTIL=20311231T235959');
  console.log(`${library}: 100 × 1,826 daily occurrences expanded in ${(performance.now() - started).toFixed(0)} ms`);
  started = performance.now();
  for (let i = 0; i < 100; i += 1)
    await expand('2027-01-01T10:00:00', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1;UNTIL=20311231T235959');
  console.log(
    `${library}: 100 × 120 first/last weekday occurrences expanded in ${(performance.now() - started).toFixed(0)} ms`,
  );
  started = performance.now();
  toInstants((await expand('2027-01-01T10:00:00', 'FREQ=DAILY;UNTIL=20311231T235959'))!);
  console.log(`${library}: 1,826 local starts → instants (luxon) in ${(performance.now() - started).toFixed(0)} ms`);
}
