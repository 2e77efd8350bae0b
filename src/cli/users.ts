/**
 * `users`, `passwords` and `tokens`: who may sign in, managed from the command line. Whoever runs these can read the
 * database anyway, so they act without credentials. A new secret goes to stdout alone (and only once), the words
 * around it to stderr, so `TOKEN=$(npx tsx src/cli.ts tokens create alice)` captures just the secret.
 */
import { CliError, parseCommandLine } from './arguments.js';
import {
  createUser,
  issueCredential,
  listCredentials,
  LOGIN_PATTERN,
  LOGIN_RULE,
  revokeCredential,
} from '../auth/credentials.js';
import type { Config } from '../config.js';
import { createDb, type Db } from '../db/client.js';
import { Role, type CredentialKind } from '../db/generated/prisma/enums.js';
import { migrate } from '../db/migrate.js';
import { FieldErrors } from '../graphql/errors.js';
import { checkEmail } from '../graphql/shared/validate.js';

type OptionName = 'role' | 'email' | 'name';
type Options = Partial<Record<OptionName, string>>;

interface Command {
  usage: string;
  summary: string;
  /** Names of the required positional arguments, in order. */
  positionals: string[];
  options: OptionName[];
  run(db: Db, args: string[], options: Options): Promise<void>;
}

const ROLES = Object.values(Role);
const KIND_NAMES: Record<CredentialKind, string> = {
  application_password: 'application password',
  bearer_token: 'bearer token',
};
const DEFAULT_CREDENTIAL_NAME = 'cli';

const note = (line: string) => console.error(line);
export const when = (date: Date | null, none: string) => (date ? date.toISOString().replace(/\.\d+Z$/, 'Z') : none);

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows])
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

async function userByLogin(db: Db, login: string) {
  const user = await db.user.findUnique({ where: { login }, select: { id: true, login: true } });
  if (!user) throw new CliError(`no user with login "${login}" (see: users list)`);
  return user;
}

function credentialName(options: Options): string {
  const name = (options.name ?? DEFAULT_CREDENTIAL_NAME).trim();
  if (name === '') throw new CliError('--name must not be empty');
  return name;
}

async function issue(db: Db, login: string, kind: CredentialKind, options: Options, howToUse: string): Promise<void> {
  const user = await userByLogin(db, login);
  const issued = await issueCredential(db, user.id, kind, credentialName(options));
  note(`New ${KIND_NAMES[kind]} "${issued.name}" (ID ${issued.id}) for ${user.login}, ${howToUse}`);
  console.log(issued.secret);
  note(
    `Copy it now: it cannot be shown again (only a hash of it is stored). Revoke it with: passwords revoke ${issued.id}`,
  );
}

const COMMANDS: Record<string, Command> = {
  'users create': {
    usage: 'users create <login> --role <role> [--email E] [--name N]',
    summary: 'add a user (--name: display name)',
    positionals: ['login'],
    options: ['role', 'email', 'name'],
    async run(db, [login], options) {
      if (!LOGIN_PATTERN.test(login!)) throw new CliError(`login "${login}" is not valid: ${LOGIN_RULE}`);
      if (options.role === undefined) throw new CliError(`missing --role <role> (${ROLES.join(', ')})`);
      const role = ROLES.find((known) => known === options.role);
      if (!role) throw new CliError(`unknown role "${options.role}" (${ROLES.join(', ')})`);
      const errors = new FieldErrors();
      checkEmail(errors, 'email', options.email);
      if (!errors.isEmpty) throw new CliError(`--email "${options.email}" is not an e-mail address`);
      const taken = new CliError(`login "${login}" is taken`);
      if (await db.user.findUnique({ where: { login: login! }, select: { id: true } })) throw taken;
      const user = await createUser(db, login!, role, options.email ?? '', options.name ?? login).catch(
        (error: { code?: string }) => {
          throw error.code === 'P2002' ? taken : error; // created meanwhile by someone else
        },
      );
      console.log(
        `Created user ${user.login} (ID ${user.id}, ${user.role}). Give it a password with: passwords create ${user.login}`,
      );
    },
  },
  'users list': {
    usage: 'users list',
    summary: 'users, their roles and working credentials',
    positionals: [],
    options: [],
    async run(db) {
      const users = await db.user.findMany({
        orderBy: { id: 'asc' },
        select: {
          id: true,
          login: true,
          role: true,
          displayName: true,
          email: true,
          _count: { select: { credentials: { where: { revokedAt: null } } } },
        },
      });
      if (users.length === 0) return void console.log('No users yet. Add one with: users create <login> --role <role>');
      printTable(
        ['ID', 'LOGIN', 'ROLE', 'NAME', 'EMAIL', 'CREDENTIALS'],
        users.map((u) => [String(u.id), u.login, u.role, u.displayName, u.email, String(u._count.credentials)]),
      );
    },
  },
  'passwords create': {
    usage: 'passwords create <login> [--name N]',
    summary: 'a new application password, shown once',
    positionals: ['login'],
    options: ['name'],
    run: (db, [login], options) =>
      issue(db, login!, 'application_password', options, `for HTTP Basic as ${login}:<this password>`),
  },
  'passwords list': {
    usage: 'passwords list <login>',
    summary: "a user's passwords and tokens (never secrets)",
    positionals: ['login'],
    options: [],
    async run(db, [login]) {
      const user = await userByLogin(db, login!);
      const credentials = await listCredentials(db, user.id);
      if (credentials.length === 0) return void console.log(`${user.login} has no application passwords or tokens.`);
      printTable(
        ['ID', 'KIND', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'],
        credentials.map((c) => [
          String(c.id),
          KIND_NAMES[c.kind],
          c.name,
          when(c.createdAt, ''),
          when(c.lastUsedAt, 'never'),
          when(c.revokedAt, '-'),
        ]),
      );
    },
  },
  'passwords revoke': {
    usage: 'passwords revoke <id>',
    summary: 'revoke a password or token at once',
    positionals: ['id'],
    options: [],
    async run(db, [raw]) {
      if (!/^\d{1,12}$/.test(raw!))
        throw new CliError(`<id> must be a credential ID (a number, see: passwords list <login>), got "${raw}"`);
      const id = Number(raw);
      const credential = await db.credential.findUnique({
        where: { id },
        select: { kind: true, name: true, revokedAt: true, user: { select: { login: true } } },
      });
      if (!credential) throw new CliError(`no credential with ID ${id}`);
      const what = `${KIND_NAMES[credential.kind]} "${credential.name}" (ID ${id}) of ${credential.user.login}`;
      if (!(await revokeCredential(db, id)))
        return void console.log(`The ${what} was already revoked on ${when(credential.revokedAt, '?')}.`);
      console.log(`Revoked the ${what}: it stops working at once.`);
    },
  },
  'tokens create': {
    usage: 'tokens create <login> [--name N]',
    summary: 'a new bearer token, shown once',
    positionals: ['login'],
    options: ['name'],
    run: (db, [login], options) =>
      issue(db, login!, 'bearer_token', options, 'to send as "Authorization: Bearer <this token>"'),
  },
};

export const ACCOUNT_GROUPS: readonly string[] = ['users', 'passwords', 'tokens'];

/** [usage, summary] of each account command, for `help`. */
export const ACCOUNT_USAGE: Array<[string, string]> = Object.values(COMMANDS).map((c) => [c.usage, c.summary]);

function parse(command: Command, args: string[]): { positionals: string[]; options: Options } {
  const options = Object.fromEntries(command.options.map((name) => [name, { type: 'string' as const }]));
  const { positionals, values } = parseCommandLine(args, options, command.usage);
  const missing = command.positionals[positionals.length];
  if (missing) throw new CliError(`missing <${missing}>; usage: ${command.usage}`);
  if (positionals.length > command.positionals.length)
    throw new CliError(`unexpected argument "${positionals[command.positionals.length]}"; usage: ${command.usage}`);
  return { positionals, options: values as Options };
}

/** Runs `users …`, `passwords …` or `tokens …` after applying pending migrations. */
export async function runAccountCommand(config: Config, group: string, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const command = COMMANDS[`${group} ${action}`];
  if (!command) {
    const actions = Object.keys(COMMANDS)
      .filter((key) => key.startsWith(`${group} `))
      .map((key) => key.slice(group.length + 1));
    const hint = group === 'tokens' ? '; passwords list and passwords revoke cover tokens too' : '';
    throw new CliError(
      `${action ? `unknown command "${group} ${action}"` : `missing a command after "${group}"`} (${actions.join(', ')})${hint}`,
    );
  }
  if (rest.includes('--help') || rest.includes('-h'))
    return void console.log(`usage: ${command.usage}\n  ${command.summary}`);
  const { positionals, options } = parse(command, rest);
  await migrate(config);
  const db = createDb(config);
  try {
    await command.run(db, positionals, options);
  } finally {
    await db.$disconnect();
  }
}
