// RFC 6238: SHA-1, 6 digits, 30-second steps, ±1 step — checked against the RFC's own test vectors and an
// independent implementation (test/helpers/totp.ts); recovery codes normalise and hash as documented.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { matchTotp, newTotpSecret, totpUri } from '../../../src/interaction/mfa/totp.js';
import { newRecoveryCodes, recoveryCodeHash } from '../../../src/interaction/mfa/recovery-codes.js';
import { hotp, totpAt } from '../../helpers/totp.js';

// RFC 6238 Appendix B: the SHA-1 seed "12345678901234567890" in base32.
const RFC_SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

test('the test generator reproduces RFC 6238 Appendix B (SHA-1, 8 digits)', () => {
  assert.equal(totpAt(RFC_SEED, 59_000, 8), '94287082');
  assert.equal(totpAt(RFC_SEED, 1111111109_000, 8), '07081804');
  assert.equal(hotp(Buffer.from('12345678901234567890'), 0), '755224'); // RFC 4226 Appendix D
});

test('a code matches its own step and one step either side, and nothing further', () => {
  const clock = manualClock(1_700_000_000_000);
  const secret = newTotpSecret();
  const step = Math.floor(clock.now() / 30_000);
  assert.equal(matchTotp(secret, totpAt(secret, clock.now()), clock), step);
  assert.equal(matchTotp(secret, totpAt(secret, clock.now() - 30_000), clock), step - 1);
  assert.equal(matchTotp(secret, totpAt(secret, clock.now() + 30_000), clock), step + 1);
  assert.equal(matchTotp(secret, totpAt(secret, clock.now() - 60_000), clock), undefined);
  assert.equal(matchTotp(secret, totpAt(secret, clock.now() + 60_000), clock), undefined);
  assert.equal(matchTotp(secret, 'abcdef', clock), undefined);
  assert.equal(matchTotp(secret, '1234567', clock), undefined);
});

test('the otpauth URI names SHA1, 6 digits and 30 seconds', () => {
  const uri = new URL(totpUri(newTotpSecret(), 'Gatehouse', 'alice'));
  assert.equal(uri.protocol, 'otpauth:');
  assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
  assert.equal(uri.searchParams.get('digits'), '6');
  assert.equal(uri.searchParams.get('period'), '30');
  assert.equal(uri.searchParams.get('issuer'), 'Gatehouse');
});

test('ten distinct recovery codes of 80 bits; typed with or without dashes, in any case, they hash the same', () => {
  const codes = newRecoveryCodes();
  assert.equal(codes.length, 10);
  assert.equal(new Set(codes).size, 10);
  for (const code of codes) assert.match(code, /^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
  const code = codes[0]!;
  assert.equal(recoveryCodeHash(code.toLowerCase().replace(/-/g, '')), recoveryCodeHash(code));
  assert.equal(recoveryCodeHash('not a code'), undefined);
});
