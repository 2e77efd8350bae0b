import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.js';
import { migrate } from './db/migrate.js';
import { createApp, listen, shutdown } from './server.js';

function publicBase(config: Config, port: number): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host}:${port}`;
}

async function serve(config: Config): Promise<void> {
  const app = await createApp(config);
  const server = await listen(app);
  const port = (server.address() as AddressInfo).port;
  const base = publicBase(config, port);
  console.log(`Calendar events service on ${config.engine} (${config.databaseUrl})`);
  console.log(`  GraphQL (GraphiQL in a browser): ${base}/graphql`);
  console.log(`  REST: ${base}/${config.restRoot}/calendar/events/v1/`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing in-flight requests`);
    shutdown(server, app).then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(): Promise<void> {
  const [command = 'serve'] = process.argv.slice(2);
  const config = loadConfig();
  if (command === 'serve') return serve(config);
  if (command === 'migrate') {
    const { applied } = await migrate(config);
    console.log(applied.length ? `Applied ${applied.join(', ')}` : 'The database is up to date.');
    return;
  }
  if (command === 'seed') {
    const { seed } = await import('./seed.js');
    await seed(config);
    return;
  }
  throw new ConfigError(`unknown command "${command}" (serve, migrate, seed)`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`Cannot start: ${error.message}`);
    process.exit(1);
  }
  console.error(error);
  process.exit(1);
});
