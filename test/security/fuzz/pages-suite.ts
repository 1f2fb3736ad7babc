// Fuzz properties for the login and consent forms: hostile field values, dropped or forged CSRF tokens,
// foreign Origins and odd content types. Every answer is an HTML page or a redirect; nothing changes state
// unless the request was a genuine success.
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { authorizeUrl, startWorld, type World } from '../helpers/world.js';
import { assertHealthy, checkAnswer, contentType, encodeForm, hostileString, property, rowCounts, runs, send, type Sent } from './harness.js';
import { Browser, type ParsedForm, parseForm } from '../../helpers/browser.js';
import { PASSWORD } from '../../helpers/users.js';

export function pagesFuzzSuite(long: boolean): void {
  describe(`fuzz: login and consent pages${long ? ' (long)' : ''}`, () => {
    let w: World;
    before(async () => {
      w = await startWorld();
    });
    after(async () => {
      await assertHealthy(w.t);
      await w.close();
    });

    async function openLogin(params: Record<string, string> = {}): Promise<{ browser: Browser; form: ParsedForm }> {
      const browser = new Browser(w.url);
      const first = await browser.get(authorizeUrl(w.A.id, params));
      const page = await browser.get(first.headers.get('location')!);
      return { browser, form: parseForm(await page.text()) };
    }

    /** Hidden fields kept, dropped or replaced; extra hostile fields added. */
    const mutation = fc.record({
      keepHidden: fc.boolean(),
      replace: fc.dictionary(fc.constantFrom('csrf', 'interaction', 'username', 'password', 'decision', 'scope'), hostileString, { maxKeys: 3 }),
      extra: fc.array(fc.tuple(fc.string({ maxLength: 10 }), hostileString), { maxLength: 3 }),
      origin: fc.option(fc.constantFrom('https://evil.example', 'null', '', 'http://127.0.0.1:1'), { freq: 3 }),
      type: fc.option(contentType, { freq: 3 }),
    });

    function build(
      form: ParsedForm,
      base: Record<string, string>,
      m: { keepHidden: boolean; replace: Record<string, string>; extra: Array<[string, string]>; origin: string | null; type: string | undefined | null },
    ): Sent {
      const fields: Record<string, string> = { ...(m.keepHidden ? form.hidden : {}), ...base, ...m.replace };
      const pairs: Array<[string, string]> = [...Object.entries(fields), ...m.extra];
      const headers: Record<string, string> = { 'content-type': m.type ?? 'application/x-www-form-urlencoded' };
      if (m.origin !== null) headers.origin = m.origin;
      return { method: 'POST', path: form.action, headers, body: encodeForm(pairs) };
    }

    test('login form with hostile credentials, CSRF tokens, origins and content types', async () => {
      await property(
        'login form',
        mutation,
        async (m) => {
          const { browser, form } = await openLogin();
          const sent = build(form, { username: w.U1.username, password: 'not-the-password' }, m);
          sent.headers!.cookie = browser.cookieHeader();
          const before = await rowCounts(w.t);
          await checkAnswer(w.t, sent, await send(w.t, sent), 'page', before);
        },
        runs(25, long),
      );
    });

    test('consent form with hostile decisions, CSRF tokens and origins', async () => {
      const { browser, form: login } = await openLogin({ prompt: 'consent', scope: 'openid profile' });
      const afterLogin = await browser.post(login.action, { ...login.hidden, username: w.U2.username, password: PASSWORD });
      const consentPage = await browser.get(afterLogin.headers.get('location')!);
      const form = parseForm(await consentPage.text());
      const forced = mutation.filter((m) => Object.keys(m.replace).length > 0 || !m.keepHidden || m.origin !== null);
      await property(
        'consent form',
        forced,
        async (m) => {
          const sent = build(form, { decision: 'allow' }, m);
          sent.headers!.cookie = browser.cookieHeader();
          const before = await rowCounts(w.t);
          const answer = await send(w.t, sent);
          await checkAnswer(w.t, sent, answer, 'page', before);
        },
        runs(25, long),
      );
    });

    test('interaction, logout and error pages with hostile paths and queries', async () => {
      const paths = fc.tuple(
        fc.constantFrom('/interaction/', '/logout?', '/logout?post_logout_redirect_uri=', '/logout/done?', '/authorize?client_id='),
        hostileString,
      );
      await property(
        'pages',
        paths,
        async ([prefix, value]) => {
          const sent: Sent = { method: 'GET', path: `${prefix}${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, ''))}` };
          await checkAnswer(w.t, sent, await send(w.t, sent), 'page', await rowCounts(w.t));
        },
        runs(25, long),
      );
    });
  });
}
