// The world of the resource-server tests (not a test file itself): an app with two registered resource
// servers (Notes with an access-token lifetime of its own, Files without offline access) and a user, and the
// requests the tests make through the CLI, /token and /introspect.
import { decodeJwt } from 'jose';
import { executeCommand } from '../../../src/cli/execute.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { registerResourceServer } from '../../helpers/resource-servers.js';
import { createUser, PASSWORD } from '../../helpers/users.js';
import { basicAuth, postForm } from '../fixtures.js';

export interface Created {
  identifier: string;
  name: string;
  scopes: { name: string; description: string }[];
  client_id: string;
  client_secret: string;
}

export interface ResourcesWorld {
  t: TestApp;
  notes: Created;
  files: Created;
  user: User;
}

export const tokenOf = (body: Record<string, unknown>) => decodeJwt(String(body.access_token));

/** The requests of the tests, against the app `start` brings up. */
export function resourcesWorld() {
  let t: TestApp | undefined;
  const app = () => {
    if (!t) throw new Error('start() the world first');
    return t;
  };
  const cli = (...argv: string[]) => executeCommand(argv, app().core) as Promise<Record<string, unknown>>;
  return {
    cli,
    async serviceClient(scope: string, extra: string[] = []): Promise<{ id: string; secret: string }> {
      const out = await cli('clients', 'create', '--name', 'svc', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', scope, ...extra);
      return { id: String(out.client_id), secret: String(out.client_secret) };
    },
    clientCredentials: (who: { id: string; secret: string }, params: Record<string, string>) =>
      postForm(`${app().url}/token`, { grant_type: 'client_credentials', ...params }, { authorization: basicAuth(who.id, who.secret) }),
    introspect: (who: { id: string; secret: string }, token: string) =>
      postForm(`${app().url}/introspect`, { token }, { authorization: basicAuth(who.id, who.secret) }),
    async start(): Promise<ResourcesWorld> {
      t = await startTestApp({ env: NO_LIMITS });
      const notes: Created = await registerResourceServer(app().core, 'https://notes.example/api', {
        name: 'Notes',
        scope: 'notes:read=Read your notes notes:write=Write notes for you',
        extra: ['--access-token-ttl', '120'],
      });
      const files: Created = await registerResourceServer(app().core, 'https://files.example', {
        name: 'Files',
        scope: 'files:read=See your files',
        extra: ['--no-offline-access'],
      });
      return { t, notes, files, user: await createUser(t.core.db, t.core.clock, { password: PASSWORD }) };
    },
  };
}
