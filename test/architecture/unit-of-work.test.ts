// One unit of work (docs/design.md, "Unit of work"): above src/storage/ nothing builds a repository, opens a
// transaction of its own or reads a PostgreSQL error code. Repositories come from the Store the composition
// root creates once (src/storage/store.ts), transactions from its one opener `store.transaction(work)` (which
// carries afterCommit and joins an outer transaction), and SQLSTATEs are error classes and predicates of
// src/storage/errors.ts. Each rule below names the files that break it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sources, src } from './import-graph.js';

const storage = join(src, 'storage');
/** Every source file above storage, comments removed so an example in a comment does not count. */
const above = sources()
  .filter((file) => !file.startsWith(storage))
  .map((file) => ({
    file: relative(src, file),
    code: readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:'"`])\/\/.*$/gm, '$1'),
  }));

const offenders = (pattern: RegExp) => above.flatMap(({ file, code }) => [...code.matchAll(pattern)].map((m) => `${file}: ${m[0]}`));

test('unit of work: no file outside src/storage constructs a repository (they come from the store)', () => {
  // A repository factory called with anything (`usersRepository(db, clock)`, `interactionsRepository<R>(db, clock)`).
  assert.deepEqual(offenders(/\b[a-z]\w*Repository\s*(?:<[^>()]*>)?\s*\(/g), []);
});

test('unit of work: no file outside src/storage opens a transaction of its own (store.transaction(work) is the one opener)', () => {
  // Kysely's opener takes no argument (`db.transaction().execute(…)`); the store's takes the work.
  assert.deepEqual(offenders(/\.transaction\s*\(\s*\)/g), []);
  assert.deepEqual(offenders(/\b(?:runTransaction|inTransaction)\b/g), []);
});

test('unit of work: no file outside src/storage imports Kysely or reads a PostgreSQL error code', () => {
  assert.deepEqual(offenders(/from\s+['"]kysely['"]/g), []);
  // SQLSTATE classes 08 (connection), 22 (data), 23 (integrity), 40 (rollback), 53/57 (resources, operator).
  assert.deepEqual(offenders(/\bcode\s*={2,3}\s*['"](?:08|22|23|40|53|57)[0-9A-Z]{3}['"]/g), []);
});

test('unit of work: the rules see what they look for (each pattern matches its own example)', () => {
  const probe = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].length;
  assert.equal(probe(/\b[a-z]\w*Repository\s*(?:<[^>()]*>)?\s*\(/g, 'const u = usersRepository(tx, clock); interactionsRepository<R>(db, clock);'), 2);
  assert.equal(probe(/\b[a-z]\w*Repository\s*(?:<[^>()]*>)?\s*\(/g, 'const u = store.users; type R = UsersRepository;'), 0);
  assert.equal(probe(/\.transaction\s*\(\s*\)/g, 'await db.transaction().execute(async (tx) => {});'), 1);
  assert.equal(probe(/\.transaction\s*\(\s*\)/g, 'await store.transaction(async (tx) => {});'), 0);
  assert.equal(probe(/\bcode\s*={2,3}\s*['"](?:08|22|23|40|53|57)[0-9A-Z]{3}['"]/g, "if (error.code === '23503') {}"), 1);
});
