import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI (generate, and migrate where the native engine exists). The server reads DATABASE_URL itself.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'file:./data/calendar.db' },
});
