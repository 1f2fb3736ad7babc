// `gatehouse users set-attribute|delete-attribute`: typed JSON values, a VALUE that is not JSON is a string,
// the limits (name, size, depth, count, total) and the refusal of reserved and standard claim names
// (docs/resource-servers.md, "Claims").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import {
  MAX_ATTRIBUTE_VALUE_BYTES,
  MAX_ATTRIBUTES,
  MAX_ATTRIBUTES_TOTAL_BYTES,
  setUserAttribute,
  deleteUserAttribute,
} from '../../src/admin-services/user-attributes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/users.js';
import type { User } from '../../src/storage/repositories/users-repository.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: {} });
});
after(() => t.close());

const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
const stored = async (user: User) =>
  (await t.core.db.selectFrom('users').select('attributes').where('id', '=', user.id).executeTakeFirstOrThrow()).attributes as Record<string, unknown>;

describe('users set-attribute', () => {
  test('VALUE is typed JSON (number, boolean, string, array, object); a VALUE that is not valid JSON is stored as a string', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    await cli('users', 'set-attribute', user.username, 'level', '42');
    await cli('users', 'set-attribute', user.username, 'active', 'true');
    await cli('users', 'set-attribute', user.username, 'quoted', '"text"');
    await cli('users', 'set-attribute', user.id, 'teams', '["a","b"]');
    await cli('users', 'set-attribute', user.id, 'limits', '{"k":1}');
    await cli('users', 'set-attribute', user.id, 'department', 'sales and marketing');
    const out = await cli('users', 'set-attribute', user.id, 'negative', '--', '-5');
    const expected = { level: 42, active: true, quoted: 'text', teams: ['a', 'b'], limits: { k: 1 }, department: 'sales and marketing', negative: -5 };
    assert.deepEqual(out, { id: user.id, attributes: expected }, 'JSON output: the user id and all attributes');
    assert.deepEqual(await stored(user), expected);
  });

  test('--delete and delete-attribute remove one attribute; removing an absent one is a usage error', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    await cli('users', 'set-attribute', user.username, 'a', '1');
    await cli('users', 'set-attribute', user.username, 'b', '2');
    assert.deepEqual(await cli('users', 'set-attribute', user.username, 'a', '--delete'), { id: user.id, deleted: 'a' });
    assert.deepEqual(await cli('users', 'delete-attribute', user.username, 'b'), { id: user.id, deleted: 'b' });
    assert.deepEqual(await stored(user), {});
    await assert.rejects(cli('users', 'delete-attribute', user.username, 'b'), UsageError);
    await assert.rejects(cli('users', 'set-attribute', 'nobody', 'a', '1'), /no user/);
  });

  test('reserved claim names are refused: sub, aud, scope, acr and the rest the server sets itself', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    for (const name of [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'nbf',
      'jti',
      'client_id',
      'scope',
      'cnf',
      'auth_time',
      'acr',
      'amr',
      'nonce',
      'azp',
      'at_hash',
      'sid',
      'typ',
    ]) {
      await assert.rejects(
        cli('users', 'set-attribute', user.username, name, '"x"'),
        (e: Error) => e instanceof UsageError && /reserved claim/.test(e.message),
        name,
      );
    }
    assert.deepEqual(await stored(user), {});
  });

  test('standard OpenID Connect claim names are refused (the OIDC scopes release them from the profile)', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    for (const name of ['email', 'email_verified', 'name', 'phone_number', 'address', 'updated_at']) {
      await assert.rejects(cli('users', 'set-attribute', user.username, name, '"x"'), /standard OpenID Connect claim/, name);
    }
  });

  test('names outside the pattern, null, nesting deeper than 5 and values over 4 KiB are refused with clear usage errors', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    for (const name of ['1abc', 'a b', 'a/b', 'x'.repeat(65), '', '__proto__', 'é']) {
      await assert.rejects(cli('users', 'set-attribute', user.username, name, '1'), /NAME: /, JSON.stringify(name));
    }
    await assert.rejects(cli('users', 'set-attribute', user.username, 'n', 'null'), /must not be null/);
    await cli('users', 'set-attribute', user.username, 'deep', '[[[[[1]]]]]');
    await assert.rejects(cli('users', 'set-attribute', user.username, 'deeper', '[[[[[[1]]]]]]'), /more than 5 deep/);
    await assert.rejects(cli('users', 'set-attribute', user.username, 'huge', 'x'.repeat(MAX_ATTRIBUTE_VALUE_BYTES)), /longer than 4096 bytes/);
    await assert.rejects(cli('users', 'set-attribute', user.username, 'nul', '"a\\u0000b"'), /NUL/);
    await assert.rejects(cli('users', 'set-attribute', user.username, 'nul_key', '{"a\\u0000": 1}'), /NUL/);
    // 1e400 reads as Infinity, which JSON cannot hold (it would be stored as null), at any depth.
    for (const huge of ['1e400', '[1e400]', '{"a":{"b":-1e400}}']) {
      await assert.rejects(cli('users', 'set-attribute', user.username, 'big', huge), /numbers are finite/, huge);
    }
    // A backslash followed by "u0000" is text like any other: only the character NUL is refused.
    await cli('users', 'set-attribute', user.username, 'path', String.raw`"C:\\u0000"`);
    assert.deepEqual(await stored(user), { deep: [[[[[1]]]]], path: String.raw`C:\u0000` });
  });

  test('a user has at most 50 attributes and 16 KiB of them; replacing an existing one is allowed at the limit', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    for (let i = 0; i < MAX_ATTRIBUTES; i++) await cli('users', 'set-attribute', user.id, `a${i}`, String(i));
    await assert.rejects(cli('users', 'set-attribute', user.id, 'one_more', '1'), /at most 50 attributes/);
    await cli('users', 'set-attribute', user.id, 'a0', '"replaced"');
    assert.equal((await stored(user)).a0, 'replaced');

    const big = await createUser(t.core.db, t.core.clock);
    const value = JSON.stringify('v'.repeat(MAX_ATTRIBUTE_VALUE_BYTES - 100));
    for (let i = 0; i < 4; i++) await cli('users', 'set-attribute', big.id, `b${i}`, value);
    await assert.rejects(cli('users', 'set-attribute', big.id, 'b4', value), new RegExp(`at most ${MAX_ATTRIBUTES_TOTAL_BYTES} bytes together`));
  });

  test('the count limit holds when two new attributes arrive at once with one place left: exactly one is stored', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    for (let i = 0; i < MAX_ATTRIBUTES - 1; i++) await cli('users', 'set-attribute', user.id, `a${i}`, '1');
    const results = await Promise.allSettled([cli('users', 'set-attribute', user.id, 'x', '1'), cli('users', 'set-attribute', user.id, 'y', '1')]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.equal(Object.keys(await stored(user)).length, MAX_ATTRIBUTES);
  });
});

describe('attribute changes are audited', () => {
  const eventsOf = (user: User) =>
    t.core.db.selectFrom('audit_events').selectAll().where('subject', '=', user.id).orderBy('occurred_at').orderBy('id').execute();

  test('set-attribute and delete-attribute write admin.user.attribute_set / attribute_deleted naming attributes.NAME, the CLI as actor, never the value', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    await cli('users', 'set-attribute', user.id, 'department', '"a value that must not be logged"');
    await cli('users', 'delete-attribute', user.id, 'department');
    const events = await eventsOf(user);
    assert.deepEqual(
      events.map((e) => e.type),
      ['admin.user.attribute_set', 'admin.user.attribute_deleted'],
    );
    for (const event of events) {
      assert.deepEqual(event.changed_fields, ['attributes.department']);
      assert.equal(event.actor_kind, 'cli');
      assert.equal(event.resource_id, user.id);
      assert.doesNotMatch(JSON.stringify(event), /must not be logged/);
    }
  });

  test('a refused change writes no event: a reserved name, a missing attribute', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    await assert.rejects(cli('users', 'set-attribute', user.id, 'sub', '"x"'), UsageError);
    await assert.rejects(cli('users', 'delete-attribute', user.id, 'absent'), UsageError);
    assert.deepEqual(await eventsOf(user), []);
  });

  test('a change and its audit event commit together: when the event cannot be written, the attribute is neither set nor deleted', async () => {
    const user = await createUser(t.core.db, t.core.clock);
    const failing = {
      ...t.core.audit,
      emit: async () => {
        throw new Error('audit store unavailable');
      },
    };
    const deps = { store: t.core.store, clock: t.core.clock, audit: failing };
    const as = { actor: { kind: 'system' as const } };
    await assert.rejects(setUserAttribute(deps, user.id, 'team', '"blue"', as), /audit store unavailable/);
    assert.deepEqual(await stored(user), {});
    await cli('users', 'set-attribute', user.id, 'team', '"blue"');
    await assert.rejects(deleteUserAttribute(deps, user.id, 'team', as), /audit store unavailable/);
    assert.deepEqual(await stored(user), { team: 'blue' });
  });
});
