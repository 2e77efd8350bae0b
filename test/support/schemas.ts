import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020Import from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';

// JSON Schemas of the REST records (test/schemas/*.schema.json, draft 2020-12), compiled once with ajv.
// Usage: `assertSchema('event', body)` throws with every violation and its JSON pointer; `schemaErrors` answers them.

/** The schemas kept in test/schemas, by file name without `.schema.json`. */
export type SchemaName =
  | 'common'
  | 'event'
  | 'venue'
  | 'organizer'
  | 'term-embedded'
  | 'term'
  | 'events-envelope'
  | 'error'
  | (string & {});

// ajv and ajv-formats are CommonJS; depending on the loader the class is the default export or its `default`.
const Ajv2020 = ((Ajv2020Import as unknown as { default?: typeof Ajv2020Import }).default ??
  Ajv2020Import) as typeof Ajv2020Import;
const addFormats = ((addFormatsImport as unknown as { default?: typeof addFormatsImport }).default ??
  addFormatsImport) as typeof addFormatsImport;

const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));
const BASE = 'https://schemas.calendar.test/';

let ajv: InstanceType<typeof Ajv2020> | undefined;
const compiled = new Map<string, ValidateFunction>();

function instance() {
  if (ajv) return ajv;
  ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  addFormats(ajv);
  for (const file of readdirSync(SCHEMA_DIR).filter((name) => name.endsWith('.schema.json'))) {
    ajv.addSchema(JSON.parse(readFileSync(`${SCHEMA_DIR}${file}`, 'utf8')) as object);
  }
  return ajv;
}

/** The compiled validator of one schema. */
export function validatorFor(name: SchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = instance().getSchema(`${BASE}${name}.schema.json`);
    if (!validate) throw new Error(`no schema test/schemas/${name}.schema.json`);
    compiled.set(name, validate);
  }
  return validate;
}

/** The violations of `data` against the schema, one readable line each (empty when valid). */
export function schemaErrors(name: SchemaName, data: unknown): string[] {
  const validate = validatorFor(name);
  if (validate(data)) return [];
  return (validate.errors ?? []).map(
    (error: ErrorObject) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
  );
}

/** Throws unless `data` is valid against the named schema. */
export function assertSchema(name: SchemaName, data: unknown): void {
  const errors = schemaErrors(name, data);
  if (errors.length)
    throw new Error(
      `not a valid ${name}:\n  ${errors.slice(0, 20).join('\n  ')}\n${JSON.stringify(data).slice(0, 2000)}`,
    );
}

/** The raw JSON Schema document, for tests that read it (e.g. the key order documented there). */
export function schemaDocument(name: SchemaName): Record<string, unknown> {
  return JSON.parse(readFileSync(`${SCHEMA_DIR}${name}.schema.json`, 'utf8')) as Record<string, unknown>;
}
