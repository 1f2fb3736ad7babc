// Enrolls TOTP for a user through the same service the account page uses, and signs such a user in with
// password and code (not a test file itself).
import type { TestApp } from '../../helpers/app.js';
import { keyEncryption } from '../../../src/crypto/key-encryption.js';
import { secondFactors, type SecondFactors } from '../../../src/interaction/mfa/second-factors.js';
import { passkeysRepository } from '../../../src/storage/repositories/passkeys-repository.js';
import { secondFactorsRepository } from '../../../src/storage/repositories/second-factors-repository.js';
import { secretOfUri, totpAt } from '../../helpers/totp.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { SIGN_IN, createUser } from '../../helpers/users.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';

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

/**
 * A new account with TOTP signs in to `clientId` in a fresh browser: password page, then the code of the
 * next time step (the clock is moved past the enrollment's step). `response` carries the code to the client.
 */
export async function signInWithTotp(
  t: TestApp,
  clock: { advance(ms: number): void; now(): number },
  clientId: string,
): Promise<{ user: User; secret: string; browser: Browser; response: Response }> {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { secret } = await enrollTotp(t, user);
  clock.advance(30_000);
  const browser = new Browser(t.url);
  const { form, path } = await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI));
  await submitLogin(browser, form, user.username);
  const second = parseForm(await (await browser.get(path)).text());
  const response = await browser.post(second.action, { ...second.hidden, otp: totpAt(secret, clock.now()) });
  return { user, secret, browser, response };
}
