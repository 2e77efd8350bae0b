// /doc as the tools integrators run on it: Redocly's linter (recommended rules) finds nothing, swagger-parser
// validates it, and openapi-typescript's types with openapi-fetch make a typed client that compiles and talks to the
// service. Both OpenAPI versions the route offers.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/project-files.js';
import { createEvent, daysFromNow } from './support/factories.js';
import { startServer, type TestServer } from './support/server.js';

const API = '/wp-json/calendar/events/v1';
const VERSIONS = ['3.0', '3.1'] as const;

let server: TestServer;
let dir: string;
const docs: Record<string, any> = {};

beforeAll(async () => {
  // A site's own address: Redocly warns of servers at localhost or example.com.
  server = await startServer({ SITE_URL: 'https://calendar.events-site.org' });
  // Inside the project, so that the generated client resolves openapi-fetch from its node_modules.
  mkdirSync(join(PROJECT_ROOT, 'node_modules/.cache'), { recursive: true });
  dir = mkdtempSync(join(PROJECT_ROOT, 'node_modules/.cache/openapi-tools-'));
  for (const version of VERSIONS) {
    const response = await fetch(`${server.url}${API}/doc?openapi=${version}`);
    expect(response.status).toBe(200);
    docs[version] = await response.json();
  }
});
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface RedoclyReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

/**
 * Runs a command to its end without blocking this process, which also serves the test server: a loop blocked for
 * seconds lets the server's keep-alive timeout close a connection the next request has already picked (ECONNRESET).
 */
function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `redocly lint` with its recommended rules, offline: no telemetry, no update check. */
async function redoclyLint(file: string): Promise<RedoclyReport> {
  const linted = await run(
    join(PROJECT_ROOT, 'node_modules/.bin/redocly'),
    ['lint', file, '--format=json', '--extends=recommended'],
    {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
    },
  );
  const json = linted.stdout.slice(linted.stdout.indexOf('{'));
  if (!json) throw new Error(`redocly lint printed no report (exit ${linted.status}): ${linted.stderr}`);
  return JSON.parse(json) as RedoclyReport;
}

describe.each(VERSIONS)('/doc?openapi=%s in the tools integrators run', (version) => {
  it('passes `redocly lint` with the recommended rules: no error, no warning', async () => {
    const file = join(dir, `doc-${version}.json`);
    writeFileSync(file, JSON.stringify(docs[version]));
    const report = await redoclyLint(file);
    const problems = report.problems.map(
      (problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  it('is valid for swagger-parser, with every $ref resolved', async () => {
    const validated = (await SwaggerParser.validate(structuredClone(docs[version]))) as any;
    expect(validated.openapi).toBe(`${version}.0`);
    expect(Object.keys(validated.paths)).toContain('/events/{id}');
  });
});

describe('a client typed by openapi-typescript, with openapi-fetch', () => {
  it('compiles from either document and reads the events list with the types it was given', async () => {
    await createEvent(server, { title: 'Typed client event', startDate: daysFromNow(1), endDate: daysFromNow(1.1) });
    for (const version of VERSIONS) {
      writeFileSync(join(dir, `api-${version}.d.ts`), astToString(await openapiTS(docs[version])));
      writeFileSync(
        join(dir, `client-${version}.ts`),
        [
          `import createClient from 'openapi-fetch';`,
          `import type { paths } from './api-${version}.js';`,
          `export async function firstTitle(baseUrl: string): Promise<string | undefined> {`,
          `  const client = createClient<paths>({ baseUrl });`,
          `  const { data, error } = await client.GET('/events', { params: { query: { per_page: 5 } } });`,
          `  if (error) throw new Error(error.message);`,
          `  const title: string | undefined = data?.events?.[0]?.title;`,
          `  return title;`,
          `}`,
          // A parameter the document does not declare must not compile.
          `// @ts-expect-error per_pages is not a parameter of GET /events`,
          `void createClient<paths>({}).GET('/events', { params: { query: { per_pages: 5 } } });`,
        ].join('\n'),
      );
    }
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          skipLibCheck: false,
          types: [],
        },
        files: VERSIONS.map((version) => `client-${version}.ts`),
      }),
    );
    const compiled = await run(process.execPath, [join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir]);
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.status).toBe(0);

    // The same call at run time, against the service.
    const client = createClient<any>({ baseUrl: `${server.url}${API}` });
    const { data, response } = await client.GET('/events', { params: { query: { per_page: 5 } } });
    expect(response.status).toBe(200);
    expect(data.events.map((event: { title: string }) => event.title)).toContain('Typed client event');
  });
});
