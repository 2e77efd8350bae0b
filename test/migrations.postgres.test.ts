import { describe, expect, it } from 'vitest';
import { diffMigrationsAgainstSchema } from '../src/db/schema-diff.js';

describe('PostgreSQL migrations', () => {
  it('bring a database to the data model of prisma/schema.prisma (replayed on a throw-away database)', async () => {
    expect(await diffMigrationsAgainstSchema('postgres'), 'run `npm run migrate:new <name>`').toBe('');
  });
});
