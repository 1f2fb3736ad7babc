// The linking decision (src/federation/linking.ts): each rule of docs/federation.md "Linking" is a test
// named after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideLinking, type LinkingFacts, type LocalAccount } from '../../src/federation/linking.js';

const local = (userId: string, email: string, emailVerified: boolean): LocalAccount => ({ userId, email, emailVerified });
const facts = (
  over: Partial<LinkingFacts> & { email?: string | null; verified?: boolean; provision?: boolean; link?: 'verified-email' | 'never' },
): LinkingFacts => ({
  identity: { email: over.email === undefined ? 'ada@example.com' : over.email, emailVerified: over.verified ?? true },
  provider: { provision: over.provision ?? false, link: over.link ?? 'verified-email' },
  linkedUserId: over.linkedUserId ?? null,
  sameEmail: over.sameEmail ?? [],
});

test('linking: an identity already linked signs in as its user, whatever the e-mails say', () => {
  assert.deepEqual(decideLinking(facts({ linkedUserId: 'u1', verified: false, sameEmail: [local('u2', 'ada@example.com', true)] })), {
    action: 'sign-in',
    userId: 'u1',
  });
});

test("linking: a verified upstream e-mail equal to one local account's verified e-mail requires proof of the local account before the link", () => {
  assert.deepEqual(decideLinking(facts({ email: 'Ada@Example.com', sameEmail: [local('u2', 'ada@example.com', true)] })), {
    action: 'prove-then-link',
    userId: 'u2',
  });
});

test('linking: never on an unverified upstream e-mail', () => {
  assert.deepEqual(decideLinking(facts({ verified: false, sameEmail: [local('u2', 'ada@example.com', true)] })), { action: 'refuse', reason: 'no-account' });
  assert.deepEqual(decideLinking(facts({ verified: false, provision: true, sameEmail: [local('u2', 'ada@example.com', true)] })), {
    action: 'provision',
    emailVerified: false,
  });
});

test('linking: never to a local account whose e-mail is unverified (pre-registered account hijacking)', () => {
  assert.deepEqual(decideLinking(facts({ sameEmail: [local('attacker', 'ada@example.com', false)] })), { action: 'refuse', reason: 'no-account' });
  assert.deepEqual(decideLinking(facts({ provision: true, sameEmail: [local('attacker', 'ada@example.com', false)] })), {
    action: 'provision',
    emailVerified: true,
  });
});

test('linking: with --link never, the same verified e-mail does not link (a separate account, or none)', () => {
  assert.deepEqual(decideLinking(facts({ link: 'never', provision: true, sameEmail: [local('u2', 'ada@example.com', true)] })), {
    action: 'provision',
    emailVerified: true,
  });
});

test('linking: two local accounts with the same verified e-mail are never picked between', () => {
  const sameEmail = [local('u2', 'ada@example.com', true), local('u3', 'ada@example.com', true)];
  assert.deepEqual(decideLinking(facts({ sameEmail })), { action: 'refuse', reason: 'no-account' });
});

test('linking: with provisioning on, an unknown identity becomes a new user, its e-mail verified only if the upstream asserted it', () => {
  assert.deepEqual(decideLinking(facts({ provision: true })), { action: 'provision', emailVerified: true });
  assert.deepEqual(decideLinking(facts({ provision: true, verified: false })), { action: 'provision', emailVerified: false });
  assert.deepEqual(decideLinking(facts({ provision: true, email: null })), { action: 'provision', emailVerified: false });
});

test('linking: with provisioning off, an unknown identity is refused (the account does not exist)', () => {
  assert.deepEqual(decideLinking(facts({})), { action: 'refuse', reason: 'no-account' });
});
