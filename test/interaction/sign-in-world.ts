// The set-up most interaction tests share: a running app, one client, and a user who can sign in
// (username and password from test/helpers/users.ts). Not a test file.
import type { Clock } from '../../src/clock.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { createUser, SIGN_IN } from '../helpers/users.js';

export interface SignInWorld {
  t: TestApp;
  client: Client;
  user: User;
}

/** `skipConsent: false` makes the client ask for consent, so a flow shows the consent page. */
export async function startSignInWorld(options: { skipConsent: boolean; clock?: Clock }): Promise<SignInWorld> {
  const t = await startTestApp(options.clock ? { clock: options.clock } : {});
  const client = (await createClient(t.core.db, t.core.clock, { skipConsent: options.skipConsent })).client;
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  return { t, client, user };
}
