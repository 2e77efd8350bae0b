import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The server runs bundled (dist/, chunks of the bundle) or from the sources (tsx in tests and scripts). Files it reads
// at run time that are not TypeScript (GraphQL documents, GraphiQL's start script, the data model, migrations) stay in
// the project and are found from its root, whichever of the two is running: this module (or the chunk it is bundled
// into) is one level below it either way.

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A file of src/, e.g. `sourceFile('read/operations')`, read from the sources even when the code runs from dist/. */
export const sourceFile = (relative: string) => join(PROJECT_ROOT, 'src', relative);

/** This build's version, package.json's (traces name the service with it). */
export const SERVICE_VERSION: string = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version;
