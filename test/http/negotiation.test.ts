// RFC 9110 §12.5.1 Accept negotiation, as a pure function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addVary, negotiate, parseAccept } from '../../src/http/negotiation.js';
import type { FastifyReply } from 'fastify';

const JSON_CSV = ['application/json', 'text/csv'];

test('no Accept, an empty one, or */* chooses the first offered type', () => {
  for (const accept of [undefined, '', '*/*']) assert.equal(negotiate(accept, JSON_CSV), 'application/json');
});

test('q=0 makes a type unacceptable: application/json;q=0 alone is 406 (undefined)', () => {
  assert.equal(negotiate('application/json;q=0', ['application/json']), undefined);
  assert.equal(negotiate('application/xml', ['application/json']), undefined);
});

test("the highest q wins; the most specific range decides a type's q", () => {
  assert.equal(negotiate('application/json;q=0.4, text/csv;q=0.9', JSON_CSV), 'text/csv');
  assert.equal(negotiate('text/*;q=0.9, text/csv;q=0.1, application/json;q=0.5', JSON_CSV), 'application/json');
  assert.equal(negotiate('*/*;q=0.1, text/csv', JSON_CSV), 'text/csv');
  assert.equal(negotiate('*/*, application/json;q=0', JSON_CSV), 'text/csv');
});

test("equal q keeps the server's order; media types compare case-insensitively", () => {
  assert.equal(negotiate('text/csv, application/json', JSON_CSV), 'application/json');
  assert.equal(negotiate('TEXT/CSV', JSON_CSV), 'text/csv');
});

test('malformed ranges are ignored, and a header with nothing valid counts as absent', () => {
  assert.equal(negotiate('garbage, ;;;, /', JSON_CSV), 'application/json');
  assert.deepEqual(
    parseAccept('text/csv;q=2').map((r) => r.q),
    [0],
  );
  assert.deepEqual(
    parseAccept('application/json; charset=utf-8; q=0.5').map((r) => r.q),
    [0.5],
  );
});

test('addVary adds a field once and keeps fields other layers set', () => {
  const headers = new Map<string, string>();
  const reply = {
    getHeader: (k: string) => headers.get(k),
    header: (k: string, v: string) => headers.set(k, v),
  } as unknown as FastifyReply;
  addVary(reply, 'Accept');
  addVary(reply, 'accept');
  headers.set('vary', `${headers.get('vary')}, Accept-Encoding`);
  addVary(reply, 'Accept');
  assert.equal(headers.get('vary'), 'Accept, Accept-Encoding');
});
