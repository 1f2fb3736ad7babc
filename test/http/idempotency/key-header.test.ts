import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, parseIdempotencyKey, requireIdempotencyKey } from '../../../src/http/idempotency/index.js';
import { ProblemError } from '../../../src/http/errors.js';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof ProblemError ? error.code : 'other';
  }
  return 'accepted';
};

test('a UUID key is accepted bare or quoted and compared case-insensitively', () => {
  const id = '8E03978E-40D5-43E8-BC93-6894A57F9324';
  assert.equal(parseIdempotencyKey(id), id.toLowerCase());
  assert.equal(parseIdempotencyKey(`"${id.toLowerCase()}"`), id.toLowerCase());
});

test('an RFC 8941 sf-string key is accepted with its escapes resolved', () => {
  assert.equal(parseIdempotencyKey('"order-42"'), 'order-42');
  assert.equal(parseIdempotencyKey('"a \\"quoted\\" \\\\ key"'), 'a "quoted" \\ key');
});

test('a required key that is absent is 400 missing-idempotency-key', () => {
  assert.equal(
    codeOf(() => requireIdempotencyKey(undefined)),
    'missing-idempotency-key',
  );
  assert.equal(parseIdempotencyKey(undefined), undefined);
});

test('an empty, over-long, unquoted, badly escaped or non-printable key is 400 invalid-idempotency-key', () => {
  for (const raw of ['""', `"${'k'.repeat(256)}"`, 'plain-token', '"unterminated', '"bad \\n escape"', '"tab\there"', '"é"', '"a"b"', '"x", "y"']) {
    assert.equal(
      codeOf(() => parseIdempotencyKey(raw)),
      'invalid-idempotency-key',
      raw,
    );
  }
  assert.equal(
    codeOf(() => parseIdempotencyKey(['"a"', '"b"'])),
    'invalid-idempotency-key',
  );
  assert.equal(
    codeOf(() => parseIdempotencyKey(`"${'k'.repeat(255)}"`)),
    'accepted',
  );
});

test('canonical JSON sorts keys at every depth, so key order never changes the request fingerprint', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
  assert.equal(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }));
  assert.notEqual(canonicalJson({ a: '1' }), canonicalJson({ a: 1 }));
});
