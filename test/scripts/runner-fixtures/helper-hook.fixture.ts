import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answer } from './helper-with-hook.js';

test('uses the helper', () => assert.equal(answer, 42));
