import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminData, graphql } from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { ADMIN_AUTHORIZATION, basicAuthorization, startServer, type TestServer } from './support/server.js';

// A user's login is what they sign in with, so GraphQL shows it only to the user and to those who manage users;
// everyone else sees the author's display name (as WordPress shows readers a name, never the login).

let server: TestServer;
let venueName: string;
const author = { login: unique('vis-author'), displayName: 'Ada Author', authorization: '' };
const subscriber = { login: unique('vis-subscriber'), authorization: '' };

async function userWithPassword(
  login: string,
  role: string,
  displayName = login,
): Promise<{ id: number; authorization: string }> {
  await adminData(
    server,
    `mutation { u: createUser(input: { login: "${login}", role: ${role.toUpperCase()}, displayName: "${displayName}" }) { login } }`,
  );
  const { id } = await server.app.db.user.findUniqueOrThrow({ where: { login } });
  const issued = await adminData(
    server,
    `mutation { p: createApplicationPassword(name: "x", userId: ${id}) { secret } }`,
  );
  return { id, authorization: basicAuthorization(login, issued.p.secret) };
}

beforeAll(async () => {
  server = await startServer();
  const created = await userWithPassword(author.login, 'author', author.displayName);
  author.authorization = created.authorization;
  subscriber.authorization = (await userWithPassword(subscriber.login, 'subscriber')).authorization;
  venueName = unique('Visibility venue');
  await adminData(
    server,
    `mutation { v: createVenue(input: { name: "${venueName}", authorId: ${created.id} }) { slug } }`,
  );
});
afterAll(() => server?.close());

async function venueAuthor(authorization: string | null) {
  const result = await graphql(
    server,
    `{ venues(first: 1, search: "${venueName}") { edges { node { author { login displayName } } } } }`,
    {},
    authorization,
  );
  expect(result.body.errors, result.text).toBeUndefined();
  return result.body.data.venues.edges[0].node.author;
}

describe('User.login', () => {
  it('is null for anonymous readers, who see the display name', async () => {
    expect(await venueAuthor(null)).toEqual({ login: null, displayName: 'Ada Author' });
  });

  it('is null for a subscriber reading another user, and shown for the subscriber’s own viewer', async () => {
    expect(await venueAuthor(subscriber.authorization)).toEqual({ login: null, displayName: 'Ada Author' });
    const own = await graphql(server, '{ viewer { login } }', {}, subscriber.authorization);
    expect(own.body.data.viewer.login).toBe(subscriber.login);
  });

  it('is shown to the user themself and to administrators', async () => {
    expect(await venueAuthor(author.authorization)).toEqual({ login: author.login, displayName: 'Ada Author' });
    expect(await venueAuthor(ADMIN_AUTHORIZATION)).toEqual({ login: author.login, displayName: 'Ada Author' });
  });
});
