import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cursorCodec, cursorKey, parsePageQuery } from '../../../src/http/pagination/index.js';
import { ProblemError } from '../../../src/http/errors.js';

const codec = cursorCodec(cursorKey(randomBytes(32)));
const position = { createdAt: new Date('2026-01-02T03:04:05.678Z'), id: 'order-1' };

const problem = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProblemError) return { code: error.code, status: error.status };
    throw error;
  }
  return undefined;
};

test('a cursor round-trips the sort key (created_at, id) it was issued for', () => {
  assert.deepEqual(codec.decode(codec.encode(position, 'orders'), 'orders'), position);
});

test('an edited cursor is 400 invalid-cursor (HMAC), never a silent page 1', () => {
  const cursor = codec.encode(position, 'orders');
  const [payload, tag] = cursor.split('.') as [string, string];
  const forged = Buffer.from(JSON.stringify([position.createdAt.getTime() + 1, 'order-1'])).toString('base64url');
  // The tag's first character carries six whole bits of the MAC, so changing it always changes the MAC (the last
  // characters may be padding bits a decoder ignores, or already be the replacement: a flaky edit).
  const otherTag = `${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}`;
  for (const edited of [`${forged}.${tag}`, `${payload}.${otherTag}`, `${payload}x.${tag}`, payload]) {
    assert.deepEqual(
      problem(() => codec.decode(edited, 'orders')),
      { code: 'invalid-cursor', status: 400 },
      edited,
    );
  }
});

test('garbage and oversized cursors are 400 invalid-cursor', () => {
  for (const garbage of ['', '.', 'not-a-cursor', '%%%.%%%', 'a.b.c', 'x'.repeat(5000), "' OR 1=1 --"]) {
    assert.deepEqual(
      problem(() => codec.decode(garbage, 'orders')),
      { code: 'invalid-cursor', status: 400 },
      garbage,
    );
  }
});

test('a cursor issued for another filter or by another key is 400 invalid-cursor', () => {
  const cursor = codec.encode(position, 'orders\n{"status":"paid"}');
  assert.equal(problem(() => codec.decode(cursor, 'orders\n{}'))?.code, 'invalid-cursor');
  const other = cursorCodec(cursorKey(randomBytes(32)));
  assert.equal(problem(() => other.decode(codec.encode(position, 'orders'), 'orders'))?.code, 'invalid-cursor');
});

test('paging parameters: default 20, non-integers 400, out of range 422, offset with cursor 422', () => {
  const cursors = { codec, scope: 'orders' };
  assert.deepEqual(parsePageQuery({}, cursors), { style: 'cursor', limit: 20 });
  assert.deepEqual(parsePageQuery({ limit: '100', offset: '0' }, cursors), { style: 'offset', limit: 100, offset: 0 });
  for (const bad of [{ limit: 'ten' }, { limit: '1.5' }, { offset: '2e3' }, { limit: '' }]) {
    assert.deepEqual(
      problem(() => parsePageQuery(bad, cursors)),
      { code: 'bad-request', status: 400 },
      JSON.stringify(bad),
    );
  }
  for (const bad of [{ limit: '0' }, { limit: '101' }, { limit: '-1' }, { offset: '-5' }]) {
    assert.deepEqual(
      problem(() => parsePageQuery(bad, cursors)),
      { code: 'VALIDATION_ERROR', status: 422 },
      JSON.stringify(bad),
    );
  }
  const cursor = codec.encode(position, 'orders');
  assert.deepEqual(
    problem(() => parsePageQuery({ offset: '0', cursor }, cursors)),
    { code: 'VALIDATION_ERROR', status: 422 },
  );
  assert.deepEqual(parsePageQuery({ cursor, limit: '5' }, cursors), { style: 'cursor', limit: 5, after: position });
});
