// The README's role table is printed from src/auth/capabilities.ts; this fails when the two drift apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readmeRolesTable, rolesTable, ROLES_TABLE_END, ROLES_TABLE_START } from '../scripts/print-roles.js';

describe('README', () => {
  it('shows exactly the role table of src/auth/capabilities.ts', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme.split(ROLES_TABLE_START), 'one start marker').toHaveLength(2);
    expect(readme.split(ROLES_TABLE_END), 'one end marker').toHaveLength(2);
    expect(readmeRolesTable(readme), 'run `npx tsx scripts/print-roles.ts --write`').toBe(rolesTable());
  });
});
