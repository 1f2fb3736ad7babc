// Migration 0860 (docs/backchannel-logout.md#sid): the sid moves from a derivation of the cookie's hash onto the
// session's row, and codes, device approvals and grants name their session by it. Sessions and grants that
// exist when it runs keep the sid their id_tokens already carry: base64url(sha256("sid:" + id_hash)), as
// Gatehouse derived it until then — checked here against that derivation in Node, on rows written the old way
// before the migration's statements run again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { sha256 } from '../../src/crypto/random.js';
import { loadMigrations } from '../../src/storage/driver/migrate.js';
import { createTestDatabase } from '../helpers/database.js';
import type { Database } from '../../src/storage/driver/database.js';
import { manualClock } from '../../src/clock.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { createUser } from '../helpers/users.js';

let database: Database;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

test('migration 0860 gives existing sessions, codes and grants the sid they were derived to have, and the stored sid is unique', async () => {
  const { db } = database;
  const clock = manualClock(Date.parse('2026-06-01T00:00:00Z'));
  const user = await createUser(db, clock);
  const { client } = await createClient(db, clock);
  const now = new Date(clock.now());
  const later = new Date(clock.now() + 3_600_000);
  const idHash = sha256('a cookie value of before the migration');
  const migration = loadMigrations().find((m) => m.version.startsWith('0860_'));
  assert.ok(migration, 'migration 0860');

  // The schema of before 0860, and rows written by the code of then: the grant names the session by its hash.
  await sql`drop index oauth_grants_session_id`.execute(db);
  await sql`alter table browser_sessions drop column sid`.execute(db);
  await sql`insert into browser_sessions (id_hash, user_id, auth_time, csrf_token, created_at, expires_at)
            values (${idHash}, ${user.id}, ${now}, 'x', ${now}, ${later})`.execute(db);
  await sql`insert into oauth_grants (id, client_id, user_id, scope, auth_time, session_id, created_at, expires_at)
            values ('grant-before-0860', ${client.id}, ${user.id}, '{openid}', ${now}, ${idHash}, ${now}, ${later}),
                   ('grant-without-session', ${client.id}, ${user.id}, '{openid}', ${now}, null, ${now}, ${later})`.execute(db);

  await sql.raw(migration.sql).execute(db);

  const derived = sha256(`sid:${idHash}`);
  const session = await db.selectFrom('browser_sessions').select('sid').where('id_hash', '=', idHash).executeTakeFirstOrThrow();
  assert.equal(session.sid, derived);
  const grants = await db.selectFrom('oauth_grants').select(['id', 'session_id']).where('user_id', '=', user.id).orderBy('id').execute();
  assert.deepEqual(grants, [
    { id: 'grant-before-0860', session_id: derived },
    { id: 'grant-without-session', session_id: null },
  ]);
  await assert.rejects(
    sql`insert into browser_sessions (id_hash, sid, user_id, auth_time, csrf_token, created_at, expires_at)
        values ('another-hash', ${derived}, ${user.id}, ${now}, 'x', ${now}, ${later})`.execute(db),
    /browser_sessions_sid/,
    'one row per sid',
  );
});
