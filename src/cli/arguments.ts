import { type ParseArgsConfig, parseArgs } from 'node:util';

/** A failure the CLI explains in one line (exit 1, no stack trace). */
export class CliError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A command's words and options, strictly: an option it does not take, or a missing value, is a CliError ending with
 * its usage. Node explains in its first sentence ("Unknown option '--x'"); the rest is advice about `--`, kept only
 * where a value may start with a dash (`keepAdvice`: a webhook secret, `--secret=-…`).
 */
export function parseCommandLine<const O extends Options>(
  args: string[],
  options: O,
  usage: string,
  keepAdvice = false,
) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`${keepAdvice ? message : message.split(/\.\s/)[0]!}; usage: ${usage}`);
  }
}
