// The tamper-evident audit log (docs/audit-log.md): every event is a link of one chain per deployment, made
// at commit; `audit verify` re-derives the chain and names the first broken link after an edit, a deletion, a
// reordering or an insertion made with raw SQL around Gatehouse; signed checkpoints verify with jose against
// the published JWKS; the retention purge keeps the chain verifiable.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { manualClock } from '../../src/clock.js';
import { CommandFailure } from '../../src/cli/command.js';
import { CHECKPOINT_TYP, writeCheckpoint } from '../../src/audit/checkpoints.js';
import { CACHE_SECONDS as CHECKPOINTS_CACHE_SECONDS } from '../../src/oauth/audit-checkpoints.js';
import { purgeExpiredAuditEvents } from '../../src/audit/retention.js';
import { eventDigest, linkHash } from '../../src/storage/repositories/audit-chain-digest.js';
import type { Verdict } from '../../src/audit/verify.js';
import type { Db } from '../../src/storage/driver/database.js';
import { startTestApp } from '../helpers/app.js';
import { createPostgresDatabaseUrl, testDatabaseKind } from '../helpers/database.js';
import { openPostgres } from '../../src/storage/driver/database.js';
import { NO_LIMITS } from '../helpers/env.js';
import { adminFixture, createBody, SERVICE_CLIENT, type AdminFixture } from '../admin/fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

const db = (): Db => f.t.core.db;
const verify = async (...args: string[]): Promise<Verdict> => {
  try {
    return (await f.cli('audit', 'verify', ...args)) as unknown as Verdict;
  } catch (error) {
    if (error instanceof CommandFailure) return error.result as Verdict;
    throw error;
  }
};
const checkpoint = () => writeCheckpoint({ store: f.t.core.store, clock, keys: f.t.core.keys, audit: f.t.core.audit, issuer: f.t.url }, { minIntervalMs: 0 });
const emitSome = (n: number, subject = 'chain-test') =>
  Promise.all(
    Array.from({ length: n }, () =>
      f.t.core.audit.emit({ type: 'login.failed', actor: { kind: 'system' }, subject, details: { reason: 'test', n: 1.5, ok: true } }),
    ),
  );

/** Raw SQL around Gatehouse, as someone with write access to the database would do it: triggers off. */
async function tamper(work: (tx: Db) => Promise<unknown>): Promise<void> {
  await db()
    .transaction()
    .execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx);
      await work(tx);
    });
}
const rowAt = async (seq: number) => db().selectFrom('audit_events').selectAll().where('chain_seq', '=', seq).executeTakeFirstOrThrow();
const head = async () => (await db().selectFrom('audit_chain').select(['head_seq']).executeTakeFirstOrThrow()).head_seq;

describe('the chain', () => {
  test('audit verify proves an untouched chain complete from the genesis link to the head', async () => {
    await emitSome(5);
    const verdict = await verify();
    assert.equal(verdict.ok, true, JSON.stringify(verdict.broken));
    assert.equal(verdict.from.source, 'genesis');
    assert.equal(verdict.from.seq, 0);
    assert.ok(verdict.verified >= 5);
    assert.equal(verdict.verified, verdict.head.seq, 'every link from 1 to the head');
  });

  test('concurrent writers: parallel admin requests (each event in its request transaction) and parallel events outside transactions make one gapless chain', async () => {
    const before = await head();
    const creates = Array.from({ length: 24 }, (_, i) =>
      f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: `Parallel ${i}` }, randomUUID())),
    );
    const [responses] = await Promise.all([Promise.all(creates), emitSome(40, 'parallel')]);
    for (const response of responses) assert.equal(response.status, 201, await response.clone().text());
    const after = await head();
    assert.ok(after - before >= 64, `64 events or more were linked (${after - before})`);
    const seqs = (await db().selectFrom('audit_events').select('chain_seq').where('chain_seq', '>', before).orderBy('chain_seq').execute()).map(
      (r) => r.chain_seq,
    );
    assert.deepEqual(
      seqs,
      Array.from({ length: after - before }, (_, i) => before + i + 1),
      'no gap, no duplicate',
    );
    const verdict = await verify();
    assert.equal(verdict.ok, true, JSON.stringify(verdict.broken));
  });

  test('two instances on one database write one chain', async () => {
    const second = await startTestApp({ database: f.t.database, clock, env: NO_LIMITS });
    try {
      await Promise.all([
        emitSome(30, 'instance-a'),
        Promise.all(Array.from({ length: 30 }, () => second.core.audit.emit({ type: 'login.failed', actor: { kind: 'system' }, subject: 'instance-b' }))),
      ]);
    } finally {
      await second.close();
    }
    const verdict = await verify();
    assert.equal(verdict.ok, true, JSON.stringify(verdict.broken));
  });

  test('an event rolled back with its transaction leaves no link and no gap', async () => {
    await assert.rejects(
      f.t.core.store.transaction(async (tx) => {
        await f.t.core.audit.emit({ type: 'login.failed', actor: { kind: 'system' }, subject: 'rolled-back' }, { tx });
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal((await db().selectFrom('audit_events').select('id').where('subject', '=', 'rolled-back').execute()).length, 0);
    await emitSome(1);
    assert.equal((await verify()).ok, true);
  });
});

describe('audit verify names the first broken link', () => {
  test('an edited row: verify fails naming its position and id, and passes again once it is restored', async () => {
    await emitSome(3);
    const seq = (await head()) - 1;
    const original = await rowAt(seq);
    await tamper((tx) => tx.updateTable('audit_events').set({ subject: 'someone-else' }).where('chain_seq', '=', seq).execute());
    const verdict = await verify();
    assert.equal(verdict.ok, false);
    assert.deepEqual({ seq: verdict.broken?.seq, id: verdict.broken?.id, reason: verdict.broken?.reason }, { seq, id: original.id, reason: 'modified' });
    await tamper((tx) => tx.updateTable('audit_events').set({ subject: original.subject }).where('chain_seq', '=', seq).execute());
    assert.equal((await verify()).ok, true);
  });

  test('an edited details value is a modification too (the digest covers every column)', async () => {
    const seq = await head();
    const original = await rowAt(seq);
    await tamper((tx) =>
      tx
        .updateTable('audit_events')
        .set({ details: JSON.stringify({ reason: 'changed' }) })
        .where('chain_seq', '=', seq)
        .execute(),
    );
    assert.equal((await verify()).broken?.seq, seq);
    await tamper((tx) =>
      tx
        .updateTable('audit_events')
        .set({ details: JSON.stringify(original.details) })
        .where('chain_seq', '=', seq)
        .execute(),
    );
    assert.equal((await verify()).ok, true);
  });

  test('a deleted row: verify fails naming the missing position', async () => {
    await emitSome(3);
    const seq = (await head()) - 1;
    const original = await rowAt(seq);
    await tamper((tx) => tx.deleteFrom('audit_events').where('chain_seq', '=', seq).execute());
    const verdict = await verify();
    assert.equal(verdict.ok, false);
    assert.deepEqual({ seq: verdict.broken?.seq, reason: verdict.broken?.reason }, { seq, reason: 'missing' });
    await tamper((tx) =>
      tx
        .insertInto('audit_events')
        .values({ ...original, details: JSON.stringify(original.details) })
        .execute(),
    );
    assert.equal((await verify()).ok, true);
  });

  test('the newest row deleted (the tail truncated): verify fails, the chain no longer reaches its head', async () => {
    await emitSome(1);
    const seq = await head();
    const original = await rowAt(seq);
    await tamper((tx) => tx.deleteFrom('audit_events').where('chain_seq', '=', seq).execute());
    assert.deepEqual({ seq: (await verify()).broken?.seq, reason: (await verify()).broken?.reason }, { seq, reason: 'missing' });
    await tamper((tx) =>
      tx
        .insertInto('audit_events')
        .values({ ...original, details: JSON.stringify(original.details) })
        .execute(),
    );
    assert.equal((await verify()).ok, true);
  });

  test('two rows swapped (reordered): verify fails naming the first of them', async () => {
    await emitSome(3);
    const seq = (await head()) - 2;
    const swap = (a: number, b: number) =>
      tamper(async (tx) => {
        await tx.updateTable('audit_events').set({ chain_seq: -1 }).where('chain_seq', '=', a).execute();
        await tx.updateTable('audit_events').set({ chain_seq: a }).where('chain_seq', '=', b).execute();
        await tx.updateTable('audit_events').set({ chain_seq: b }).where('chain_seq', '=', -1).execute();
      });
    await swap(seq, seq + 1);
    const verdict = await verify();
    assert.deepEqual({ seq: verdict.broken?.seq, reason: verdict.broken?.reason }, { seq, reason: 'modified' });
    await swap(seq, seq + 1);
    assert.equal((await verify()).ok, true);
  });

  test('a row inserted into the middle (later rows renumbered): verify fails naming the inserted position', async () => {
    await emitSome(3);
    const seq = (await head()) - 1;
    const template = await rowAt(seq);
    const forged = randomUUID();
    await tamper(async (tx) => {
      for (const row of await tx.selectFrom('audit_events').select('chain_seq').where('chain_seq', '>', seq).orderBy('chain_seq', 'desc').execute()) {
        await tx
          .updateTable('audit_events')
          .set({ chain_seq: row.chain_seq! + 1 })
          .where('chain_seq', '=', row.chain_seq)
          .execute();
      }
      await tx
        .insertInto('audit_events')
        .values({ ...template, id: forged, chain_seq: seq + 1, details: JSON.stringify(template.details) })
        .execute();
      await tx.updateTable('audit_chain').set({ head_seq: sql`head_seq + 1` }).execute();
    });
    const verdict = await verify();
    assert.deepEqual({ seq: verdict.broken?.seq, id: verdict.broken?.id, reason: verdict.broken?.reason }, { seq: seq + 1, id: forged, reason: 'modified' });
    await tamper(async (tx) => {
      await tx.deleteFrom('audit_events').where('id', '=', forged).execute();
      for (const row of await tx
        .selectFrom('audit_events')
        .select('chain_seq')
        .where('chain_seq', '>', seq + 1)
        .orderBy('chain_seq')
        .execute()) {
        await tx
          .updateTable('audit_events')
          .set({ chain_seq: row.chain_seq! - 1 })
          .where('chain_seq', '=', row.chain_seq)
          .execute();
      }
      await tx.updateTable('audit_chain').set({ head_seq: sql`head_seq - 1` }).execute();
    });
    assert.equal((await verify()).ok, true);
  });

  test('a row inserted around the writer (not linked) is named as not in the chain', async () => {
    const template = await rowAt(await head());
    const forged = randomUUID();
    await tamper((tx) =>
      tx
        .insertInto('audit_events')
        .values({ ...template, id: forged, chain_seq: null, chain_hash: null, details: '{}' })
        .execute(),
    );
    const verdict = await verify();
    assert.deepEqual({ id: verdict.broken?.id, reason: verdict.broken?.reason }, { id: forged, reason: 'not-in-chain' }, JSON.stringify(verdict));
    await tamper((tx) => tx.updateTable('audit_events').set({ before_chain: true }).where('id', '=', forged).execute());
    assert.equal((await verify()).broken?.reason, 'not-in-chain', 'nor can it pass as an event stored before the chain began');
    await tamper((tx) => tx.deleteFrom('audit_events').where('id', '=', forged).execute());
    assert.equal((await verify()).ok, true);
  });

  test('the database refuses an event without its digest, and an UPDATE other than the link', async () => {
    await assert.rejects(
      db().insertInto('audit_events').values({ id: randomUUID(), type: 'login.failed', occurred_at: new Date(), actor_kind: 'system' }).execute(),
      /no chain digest/,
    );
    await assert.rejects(
      db()
        .updateTable('audit_events')
        .set({ subject: 'x' })
        .where('chain_seq', '=', await head())
        .execute(),
      /append-only/,
    );
  });
});

describe('signed checkpoints', () => {
  test('a checkpoint is signed with the deployment key, published at /.well-known/audit-checkpoints, verifies with jose against the JWKS, and is an audit event', async () => {
    await emitSome(2);
    const written = await checkpoint();
    assert.ok(written, 'a checkpoint was written');
    const response = await fetch(`${f.t.url}/.well-known/audit-checkpoints`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { issuer: string; jwks_uri: string; checkpoints: { seq: number; hash: string; jws: string }[] };
    const published = body.checkpoints[0]!;
    assert.equal(published.seq, written.seq);
    const { payload, protectedHeader } = await jwtVerify(published.jws, createRemoteJWKSet(new URL(body.jwks_uri)), {
      issuer: f.t.url,
      typ: CHECKPOINT_TYP,
      algorithms: ['ES256'],
    });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(payload.seq, written.seq);
    const covered = await rowAt(written.seq);
    assert.equal(payload.hash, Buffer.from(covered.chain_hash!).toString('base64url'), 'the signed hash is the chain hash at that position');
    const event = await db()
      .selectFrom('audit_events')
      .selectAll()
      .where('type', '=', 'audit.checkpoint')
      .where('resource_id', '=', String(written.seq))
      .executeTakeFirstOrThrow();
    assert.equal((event.details as { jws: string }).jws, published.jws);
    const verdict = await verify();
    assert.equal(verdict.ok, true);
    assert.ok(verdict.checkpoints >= 1);
  });

  test('the periodic checkpoint job of two instances sharing one database writes one checkpoint per interval', async () => {
    const second = await startTestApp({ database: f.t.database, clock, env: NO_LIMITS });
    try {
      await emitSome(2);
      const count = async () =>
        Number(
          (
            await db()
              .selectFrom('audit_checkpoints')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      clock.advance(f.t.config.AUDIT_CHECKPOINT_INTERVAL * 1000);
      await Promise.all([f.t.app.jobs.runDue(), second.app.jobs.runDue()]);
      assert.equal(await count(), before + 1, 'one checkpoint, not one per instance');
      await emitSome(2);
      clock.advance(60_000);
      await Promise.all([f.t.app.jobs.runDue(), second.app.jobs.runDue()]);
      assert.equal(await count(), before + 1, 'none before the interval has passed');
    } finally {
      await second.close();
    }
  });

  test('a checkpoint signs without a second connection: on a pool of one (PGlite has one) it does not wait on itself when the key rows are due for a re-read', async (t) => {
    // PGlite runs the suite's other pass; here a real server with a pool of one connection shows the same rule.
    if (testDatabaseKind() === 'pglite') return t.diagnostic('covered by the other two-instance test on PGlite');
    const shared = await createPostgresDatabaseUrl();
    const database = await openPostgres(shared.url, 1);
    const own = manualClock(Date.now());
    const single = await startTestApp({ database, clock: own, env: NO_LIMITS });
    try {
      await single.core.audit.emit({ type: 'login.failed', actor: { kind: 'system' }, subject: 'pool-of-one', details: {} });
      own.advance((single.config.KEY_REFRESH_INTERVAL + 1) * 1000); // the instance's copy of the key rows is stale
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the checkpoint waited on a second connection (deadlock)')), 20_000);
      });
      const written = await Promise.race([
        writeCheckpoint({ store: single.core.store, clock: own, keys: single.core.keys, audit: single.core.audit, issuer: single.url }, { minIntervalMs: 0 }),
        stuck,
      ]).finally(() => clearTimeout(timer));
      assert.ok(written, 'a checkpoint was written');
    } finally {
      await single.close();
      await database.close();
      await shared.drop();
    }
  });

  test('a second checkpoint is not written while nothing new happened', async () => {
    await emitSome(1);
    assert.ok(await checkpoint());
    assert.equal(await checkpoint(), undefined);
  });

  test('verify --from a checkpoint (its position or its JWS) checks from there to the head', async () => {
    await emitSome(2);
    const written = (await checkpoint())!;
    await emitSome(2);
    const byPosition = await verify('--from', String(written.seq));
    assert.equal(byPosition.ok, true, JSON.stringify(byPosition.broken));
    assert.deepEqual(byPosition.from, { seq: written.seq, hash: written.hash.toString('base64url'), source: 'checkpoint' });
    assert.equal(byPosition.verified, byPosition.head.seq - written.seq);
    assert.equal((await verify('--from', written.jws)).ok, true);
    const forged = `${written.jws.slice(0, -4)}AAAA`;
    assert.equal((await verify('--from', forged)).broken?.reason, 'checkpoint-mismatch', 'a checkpoint whose signature fails is refused');
  });

  test('a chain rewritten with recomputed hashes still fails at the signed checkpoint, and against a copy of it kept outside when the stored ones are deleted', async () => {
    await emitSome(2);
    const kept = (await checkpoint())!;
    const seq = kept.seq - 1;
    const original = await rowAt(seq);
    const headBefore = await db().selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
    const storedCheckpoints = await db().selectFrom('audit_checkpoints').selectAll().execute();
    // The attacker edits a row, then recomputes every later link and the head: no link breaks.
    const rewrite = async (subject: string | null) =>
      tamper(async (tx) => {
        await tx.updateTable('audit_events').set({ subject }).where('chain_seq', '=', seq).execute();
        let previous: Buffer = Buffer.from(
          (
            await tx
              .selectFrom('audit_events')
              .select('chain_hash')
              .where('chain_seq', '=', seq - 1)
              .executeTakeFirstOrThrow()
          ).chain_hash!,
        );
        for (const row of await tx.selectFrom('audit_events').selectAll().where('chain_seq', '>=', seq).orderBy('chain_seq').execute()) {
          previous = linkHash(previous, row.chain_seq!, eventDigest({ ...row, changed_fields: row.changed_fields }));
          await tx.updateTable('audit_events').set({ chain_hash: previous }).where('id', '=', row.id).execute();
        }
        await tx.updateTable('audit_chain').set({ head_hash: previous }).execute();
      });
    await rewrite('rewritten');
    assert.equal((await verify()).broken?.reason, 'checkpoint-mismatch', 'the stored checkpoint catches it');
    await tamper((tx) => tx.deleteFrom('audit_checkpoints').execute());
    assert.equal((await verify('--from', kept.jws)).broken?.reason, 'checkpoint-mismatch', 'a copy of the checkpoint kept outside catches it');
    // Restore.
    await rewrite(original.subject);
    await tamper(async (tx) => {
      await tx
        .insertInto('audit_checkpoints')
        .values(storedCheckpoints.map((c) => ({ ...c, hash: Buffer.from(c.hash) })))
        .execute();
      await tx.updateTable('audit_chain').set({ head_hash: headBefore.head_hash }).execute();
    });
    assert.equal((await verify()).ok, true);
  });
});

describe('retention', () => {
  test('the purge deletes only up to a checkpoint older than AUDIT_RETENTION, that checkpoint becomes the anchor, and verify still passes', async () => {
    const [earliest] = await db().selectFrom('audit_checkpoints').select('jws').orderBy('seq').execute();
    await emitSome(3, 'retention-old');
    const old = (await checkpoint())!;
    await emitSome(2, 'retention-between');
    clock.advance((f.t.config.AUDIT_RETENTION + 60) * 1000);
    await emitSome(2, 'retention-new');
    const purged = await purgeExpiredAuditEvents({ store: f.t.core.store, clock, retentionSeconds: f.t.config.AUDIT_RETENTION });
    assert.ok(purged >= 3);
    const remaining = await db()
      .selectFrom('audit_events')
      .select((eb) => eb.fn.min('chain_seq').as('first'))
      .executeTakeFirstOrThrow();
    assert.equal(remaining.first, old.seq + 1, 'everything up to the checkpoint is gone, nothing after it');
    const subjects = new Set((await db().selectFrom('audit_events').select('subject').execute()).map((r) => r.subject));
    assert.ok(!subjects.has('retention-old') && subjects.has('retention-between') && subjects.has('retention-new'));
    const verdict = await verify();
    assert.equal(verdict.ok, true, JSON.stringify(verdict.broken));
    assert.deepEqual(verdict.from, { seq: old.seq, hash: old.hash.toString('base64url'), source: 'retention-anchor' });
    assert.equal((await verify('--from', earliest!.jws)).broken?.reason, 'missing', 'a checkpoint older than the anchor cannot be verified from');
  });

  test('without a checkpoint older than the window nothing chained is purged (events outlive it by at most one checkpoint interval)', async () => {
    const first = (
      await db()
        .selectFrom('audit_events')
        .select((eb) => eb.fn.min('chain_seq').as('first'))
        .executeTakeFirstOrThrow()
    ).first;
    await purgeExpiredAuditEvents({ store: f.t.core.store, clock, retentionSeconds: f.t.config.AUDIT_RETENTION });
    assert.equal(
      (
        await db()
          .selectFrom('audit_events')
          .select((eb) => eb.fn.min('chain_seq').as('first'))
          .executeTakeFirstOrThrow()
      ).first,
      first,
    );
  });

  test('a retention anchor moved by hand (not to a signed checkpoint) fails verification', async () => {
    const before = await db().selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
    await tamper((tx) =>
      tx
        .updateTable('audit_chain')
        .set({ anchor_seq: before.anchor_seq + 1 })
        .execute(),
    );
    assert.equal((await verify()).broken?.reason, 'anchor');
    await tamper((tx) => tx.updateTable('audit_chain').set({ anchor_seq: before.anchor_seq }).execute());
    assert.equal((await verify()).ok, true);
  });
});

test('the checkpoint header names the key that signed it, one the JWKS serves', async () => {
  const { jws } = await db().selectFrom('audit_checkpoints').select('jws').orderBy('seq', 'desc').executeTakeFirstOrThrow();
  const kids = ((await (await fetch(`${f.t.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
  assert.ok(kids.includes(String(decodeProtectedHeader(jws).kid)));
});

// Last in the file: it moves the clock, and no test after it reads the endpoint through a cached answer.
test('/.well-known/audit-checkpoints is read from the database at most once a minute per instance: a checkpoint written meanwhile appears once the cached answer expires', async () => {
  const published = async () => {
    const response = await fetch(`${f.t.url}/.well-known/audit-checkpoints`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), `public, max-age=${CHECKPOINTS_CACHE_SECONDS}`);
    return ((await response.json()) as { checkpoints: { seq: number }[] }).checkpoints.map((c) => c.seq);
  };
  await emitSome(2);
  await checkpoint();
  const first = await published();
  await emitSome(2);
  const written = await checkpoint();
  assert.ok(written && !first.includes(written.seq));
  assert.deepEqual(await published(), first, 'the cached answer, no query');
  clock.advance(CHECKPOINTS_CACHE_SECONDS * 1000 - 1);
  assert.deepEqual(await published(), first, 'still cached just before the minute ends');
  clock.advance(1);
  assert.equal((await published())[0], written.seq, 'read again once the minute has passed');
});
