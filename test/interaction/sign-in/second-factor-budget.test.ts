// S2 (NIST SP 800-63B §5.2.2, docs/rate-limits.md): second-factor guesses are limited per account, across
// addresses. Someone who has the password guesses TOTP codes on /account from many source addresses
// (X-Forwarded-For, honoured because TRUST_PROXY names the loopback proxy): after 5 consecutive failures each
// attempt waits a growing delay, after 100 they stop until a full sign-in, a reset or the operator's
// reset-mfa — and the right code from a fresh address is refused meanwhile.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../../src/cli/execute.js';
import { manualClock } from '../../../src/clock.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { totpAt } from '../../helpers/totp.js';
import { PASSWORD, SIGN_IN, createUser } from '../../helpers/users.js';
import { enrollTotp } from '../mfa/enroll.js';

describe('the account-wide second-factor budget', () => {
  let t: TestApp;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: { TRUST_PROXY: '127.0.0.1' } });
  });
  after(() => t.close());

  /** The attacker's browser: the right password (from `from`), then the second-factor form. */
  async function pastPassword(browser: Browser, user: User, from: string, password = PASSWORD) {
    const at = { 'x-forwarded-for': from };
    const login = parseForm(await (await browser.get('/account', at)).text());
    assert.equal((await browser.post(login.action, { ...login.hidden, username: user.username, password }, at)).headers.get('location'), '/account');
    const form = parseForm(await (await browser.get('/account', at)).text());
    assert.equal(form.action, '/account/second-factor');
    return (otp: string, address: string) => browser.post(form.action, { ...form.hidden, otp }, { 'x-forwarded-for': address });
  }

  const evaluated = async (user: User) =>
    (await t.core.db.selectFrom('audit_events').select('details').where('subject', '=', user.id).where('type', '=', 'login.failed').execute()).length;

  test('second-factor guesses are limited per account across addresses: 120 wrong codes from 12 addresses, 5 are evaluated, and the right code from a 13th waits', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const browser = new Browser(t.url);
    const guess = await pastPassword(browser, user, '198.51.100.1');
    const wrong = totpAt(secret, clock.now() + 600_000);
    const statuses: number[] = [];
    for (let address = 1; address <= 12; address++) {
      for (let i = 0; i < 10; i++) statuses.push((await guess(wrong, `203.0.113.${address}`)).status);
    }
    assert.equal(statuses.filter((s) => s === 303).length, 5, 'only the first five wrong codes were looked at');
    assert.equal(statuses.filter((s) => s === 429).length, 115);
    assert.equal(await evaluated(user), 5);
    const right = await guess(totpAt(secret, clock.now()), '192.0.2.13');
    assert.equal(right.status, 429, 'the right code from a fresh address waits too');
    assert.ok(Number(right.headers.get('retry-after')) >= 1);

    clock.advance(1_000);
    assert.equal(
      (await guess(totpAt(secret, clock.now()), '192.0.2.13')).headers.get('location'),
      '/account',
      'after the delay the owner signs in, which clears the count',
    );
    assert.equal(await t.core.db.selectFrom('second_factor_failures').select('consecutive').where('user_id', '=', user.id).executeTakeFirst(), undefined);
  });

  test('second-factor guesses stop after 100 consecutive failures until the operator’s reset-mfa, whatever the address and however slow', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    let guess = await pastPassword(new Browser(t.url), user, '198.51.100.2');
    for (let i = 0; i < 100; i++) {
      // Slower than every delay (at most 60 s), from a new address each time; a new password sign-in before the wait (5 min) runs out.
      clock.advance(61_000);
      if (i % 4 === 3) guess = await pastPassword(new Browser(t.url), user, `198.51.${i}.2`);
      const r = await guess(totpAt(secret, clock.now() + 600_000), `10.2.${i}.1`);
      assert.equal(r.headers.get('location'), '/account?failed=1', `guess ${i + 1} is evaluated`);
    }
    clock.advance(3_600_000);
    guess = await pastPassword(new Browser(t.url), user, '198.51.200.2');
    const right = await guess(totpAt(secret, clock.now()), '192.0.2.99');
    assert.equal(
      right.status,
      429,
      `stopped: even the right code from a fresh address an hour later (${right.status} ${right.headers.get('location')} ${JSON.stringify(await t.core.db.selectFrom('second_factor_failures').selectAll().where('user_id', '=', user.id).execute())})`,
    );
    assert.equal(right.headers.get('retry-after'), null, 'no time helps');

    await executeCommand(['users', 'reset-mfa', user.id], t.core);
    assert.equal(
      await t.core.db.selectFrom('second_factor_failures').select('consecutive').where('user_id', '=', user.id).executeTakeFirst(),
      undefined,
      'the operator’s reset clears the count',
    );
  });

  test('an operator’s new password is a recovery event: users set-password clears the account-wide second-factor count, a stop included, and the owner signs in with the new password and the code', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    // Stopped, as the test above gets there by 100 requests.
    await t.core.db
      .insertInto('second_factor_failures')
      .values({ user_id: user.id, consecutive: 100, last_failure_at: new Date(clock.now()) })
      .execute();
    const stopped = await (await pastPassword(new Browser(t.url), user, '198.51.100.7'))(totpAt(secret, clock.now()), '192.0.2.7');
    assert.equal(stopped.status, 429, 'the right code is refused while stopped');

    const newPassword = 'a brand new operator-set password';
    await executeCommand(['users', 'set-password', user.id, '--password', newPassword], t.core);
    assert.equal(
      await t.core.db.selectFrom('second_factor_failures').select('consecutive').where('user_id', '=', user.id).executeTakeFirst(),
      undefined,
      'the operator’s new password clears the count',
    );
    const signIn = await pastPassword(new Browser(t.url), user, '198.51.100.8', newPassword);
    assert.equal(
      (await signIn(totpAt(secret, clock.now()), '192.0.2.8')).headers.get('location'),
      '/account',
      'the owner’s authenticator works again, not reset',
    );
  });
});
