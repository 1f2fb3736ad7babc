// The amr and acr a code's tokens state are those of the sign-in the code carries (src/oauth/issued-tokens/
// authentication-context.ts, src/storage/repositories/grant-redemption.ts). A code names its browser session by
// its sid, which a re-login by the same account keeps (docs/backchannel-logout.md#sid): so the session's record
// counts only while it still holds the code's sign-in (its auth_time). A code issued after a password alone and
// redeemed after the same browser signed in again with a second factor must not claim that second factor.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { ACR_MFA } from '../../../src/oauth/issued-tokens/authentication-context.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { clientAnswer } from '../../helpers/client-answer.js';
import { createClient, postToken, refreshWith, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { RFC7636 } from '../../helpers/pkce.js';
import { totpAt } from '../../helpers/totp.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';
import { authorizeQuery, openInteraction, submitLogin } from '../../interaction/browserless.js';
import { enrollTotp } from '../../interaction/mfa/enroll.js';

const clock = manualClock(1_800_000_000_000);
let t: TestApp;
let app: ClientFixture;
const scope = 'openid profile offline_access';

before(async () => {
  t = await startTestApp({ clock, env: {} });
  app = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
});
after(() => t.close());

/** The code in the answer to the client (after a form: the hand-over page, test/helpers/client-answer.ts). */
const codeOf = async (response: Response): Promise<string> => {
  const target = (await clientAnswer(response)).href;
  if (!target.startsWith(`${REDIRECT_URI}?code=`)) assert.fail(`expected the code at the client, got ${target}`);
  return new URL(target).searchParams.get('code')!;
};

test("a code states its own sign-in's amr: redeemed after the same account signed in again with a second factor, it does not claim mfa", async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const browser = new Browser(t.url);
  // A password-only sign-in; its code waits at the client.
  const first = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { scope }));
  const earlyCode = await codeOf(await submitLogin(browser, first.form, user.username));

  // The account gets a second factor, and the same browser signs in again with it (the session keeps its sid).
  const { secret } = await enrollTotp(t, user);
  clock.advance(30_000);
  const again = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { scope, prompt: 'login' }));
  await submitLogin(browser, again.form, user.username);
  const otpForm = parseForm(await (await browser.get(again.path)).text());
  const lateCode = await codeOf(await browser.post(otpForm.action, { ...otpForm.hidden, otp: totpAt(secret, clock.now()) }));

  const redeem = async (code: string) => {
    const { status, body } = await postToken(t.url, app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: RFC7636.verifier,
    });
    assert.equal(status, 200, JSON.stringify(body));
    return body as { id_token: string; refresh_token: string };
  };
  const late = decodeJwt((await redeem(lateCode)).id_token);
  assert.equal(late.acr, ACR_MFA, 'the second sign-in is mfa');
  const earlyTokens = await redeem(earlyCode);
  const early = decodeJwt(earlyTokens.id_token);
  assert.equal(early.sid, late.sid, 'one session');
  assert.notEqual(early.acr, ACR_MFA);
  assert.ok(!((early.amr as string[] | undefined) ?? []).includes('otp'), `amr ${JSON.stringify(early.amr)}`);
  // Nor does the grant remember it: the refreshed id_token says the same.
  const refreshed = decodeJwt((await refreshWith(t.url, app, earlyTokens.refresh_token)).body.id_token as string);
  assert.notEqual(refreshed.acr, ACR_MFA);
  assert.ok(!((refreshed.amr as string[] | undefined) ?? []).includes('otp'));
});
