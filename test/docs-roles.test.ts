// The role table of docs/authentication.md is printed from src/auth/capabilities.ts; this fails when the two drift apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  documentedRolesTable,
  ROLES_PAGE,
  ROLES_TABLE_END,
  ROLES_TABLE_START,
  rolesTable,
  tableCells,
} from '../scripts/print-roles.js';

describe('docs/authentication.md', () => {
  it('shows exactly the role table of src/auth/capabilities.ts', () => {
    const page = readFileSync(new URL(ROLES_PAGE, new URL('../scripts/', import.meta.url)), 'utf8');
    expect(page.split(ROLES_TABLE_START), 'one start marker').toHaveLength(2);
    expect(page.split(ROLES_TABLE_END), 'one end marker').toHaveLength(2);
    const documented = documentedRolesTable(page);
    expect(documented, 'the table between the markers').not.toBeNull();
    expect(tableCells(documented!), 'run `npx tsx scripts/print-roles.ts --write`').toEqual(tableCells(rolesTable()));
  });
});
