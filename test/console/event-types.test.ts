// The console's audit filter offers every event type the server records, and no other: its list is a copy
// (console/ runs in the browser), so this test is what keeps the two equal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AUDIT_EVENT_TYPES } from '../../src/audit/audit-events.js';

test("the console's audit filter lists exactly the server's audit event types", () => {
  const source = readFileSync(new URL('../../console/pages/audit.js', import.meta.url), 'utf8');
  const start = source.indexOf('export const EVENT_TYPES = [');
  assert.ok(start >= 0, 'console/pages/audit.js exports EVENT_TYPES');
  const block = source.slice(start, source.indexOf('];', start));
  const listed = [...block.matchAll(/'([^']*)'/g)].map((m) => m[1]).filter((t) => t !== '');
  assert.deepEqual([...listed].sort(), [...AUDIT_EVENT_TYPES].sort());
});
