// Generated files are committed; these tests fail when the code they come from changed without `npm run generate`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import codegenConfig, { CODEGEN_OUTPUT } from '../codegen.js';
import { diffMigrationsAgainstSchema, PROJECT_ROOT } from '../src/db/schema-diff.js';
import { sortedSchema } from '../src/graphql/schema.js';

const committed = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
const REGENERATE = 'run `npm run generate` and commit the result';

describe('generated files', () => {
  it('schema.graphql is the printed schema of the code', () => {
    expect(committed('schema.graphql'), REGENERATE).toBe(`${printSchema(sortedSchema)}\n`);
  });

  it('the codegen output is what codegen.ts produces from schema.graphql and the REST operations', async () => {
    const outputs: Array<{ filename: string; content: string }> = await generate(
      { ...codegenConfig, cwd: PROJECT_ROOT },
      false,
    );
    const output = outputs.find((file) => file.filename.endsWith(CODEGEN_OUTPUT));
    expect(output, `codegen produced ${outputs.map((file) => file.filename).join(', ')}`).toBeDefined();
    expect(committed(CODEGEN_OUTPUT), REGENERATE).toBe(output!.content);
  });

  it('the SQLite migrations bring a database to prisma/schema.prisma', async () => {
    expect(await diffMigrationsAgainstSchema('sqlite'), 'run `npm run migrate:new <name>`').toBe('');
  });
});
