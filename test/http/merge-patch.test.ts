import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mergePatch, type Json } from '../../src/http/merge-patch.js';

// RFC 7396 Appendix A, every example in order: [original, patch, result].
const appendixA: [Json, Json, Json][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

for (const [i, [original, patch, result]] of appendixA.entries()) {
  test(`RFC 7396 Appendix A example ${i + 1}: ${JSON.stringify(original)} + ${JSON.stringify(patch)} = ${JSON.stringify(result)}`, () => {
    assert.deepEqual(mergePatch(original, patch), result);
  });
}

test('the RFC 7396 §3 example document is patched as the RFC shows', () => {
  const target: Json = { title: 'Goodbye!', author: { givenName: 'John', familyName: 'Doe' }, tags: ['example', 'sample'], content: 'This will be unchanged' };
  const patch: Json = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
  assert.deepEqual(mergePatch(target, patch), {
    title: 'Hello!',
    author: { givenName: 'John' },
    tags: ['example'],
    content: 'This will be unchanged',
    phoneNumber: '+01-123-456-7890',
  });
});

test('merge patch never mutates its inputs', () => {
  const target: Json = { a: { b: 1 }, c: [1] };
  const patch: Json = { a: { b: 2, d: null }, c: null };
  const before = structuredClone({ target, patch });
  mergePatch(target, patch);
  assert.deepEqual({ target, patch }, before);
});

const json = fc.jsonValue() as fc.Arbitrary<Json>;

test('applying the same merge patch twice equals applying it once (idempotent, RFC 5789 note)', () => {
  fc.assert(
    fc.property(json, json, (target, patch) => {
      const once = mergePatch(target, patch);
      assert.deepEqual(mergePatch(once, patch), once);
    }),
  );
});

test('a patch whose members are all absent-or-equal leaves an object target unchanged', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean())), (dictionary) => {
      const target: Json = { ...dictionary };
      assert.deepEqual(mergePatch(target, target), target);
      assert.deepEqual(mergePatch(target, {}), target);
    }),
  );
});

test('a member named __proto__ is merged as plain data and never changes a prototype', () => {
  const patch = JSON.parse('{"__proto__":{"admin":true}}') as Json;
  const result = mergePatch({}, patch) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.equal((result as { admin?: boolean }).admin, undefined);
  assert.deepEqual(Object.keys(result), ['__proto__']);
});
