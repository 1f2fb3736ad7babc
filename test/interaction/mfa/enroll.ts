// Enrolls TOTP for a user through the same service the account page uses (not a test file itself).
import type { TestApp } from '../../helpers/app.js';
import { keyEncryption } from '../../../src/crypto/key-encryption.js';
import { secondFactors, type SecondFactors } from '../../../src/interaction/mfa/second-factors.js';
import { passkeysRepository } from '../../../src/storage/passkeys-repository.js';
import { secondFactorsRepository } from '../../../src/storage/second-factors-repository.js';
import { secretOfUri, totpAt } from '../../helpers/totp.js';

export function factorsOf(t: TestApp): SecondFactors {
  return secondFactors({
    repository: secondFactorsRepository(t.core.db, t.core.clock),
    encryption: keyEncryption(Buffer.from(t.config.KEY_ENCRYPTION_KEY!, 'base64url')),
    clock: t.core.clock,
    issuerName: 'Gatehouse',
    passkeys: passkeysRepository(t.core.db, t.core.clock),
  });
}

/** Returns the TOTP secret and the ten recovery codes. */
export async function enrollTotp(t: TestApp, user: { id: string; username: string }): Promise<{ secret: string; recoveryCodes: string[] }> {
  const factors = factorsOf(t);
  const enrollment = await factors.beginTotp(user);
  if (!enrollment) throw new Error('already enrolled');
  const secret = secretOfUri(enrollment.uri);
  // The enrollment code uses up the current step: login codes come from the next one (tests move the clock).
  const recoveryCodes = await factors.confirmTotp(user.id, totpAt(secret, t.core.clock.now()));
  if (!recoveryCodes) throw new Error('enrollment not confirmed');
  return { secret, recoveryCodes };
}
