// The device flow without a browser (test/helpers/browser.ts): starting a device authorization as a client,
// entering the user code on /device, then walking the ordinary login and the consent to the result page.
// Not a test file; the Chromium test is test/e2e/device-flow.browser.test.ts.
import { Browser, parseForm } from '../../helpers/browser.js';
import type { ClientFixture } from '../../helpers/oauth-fixtures.js';
import { PASSWORD } from '../../helpers/users.js';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceAuthorizationBody {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

const clientForm = (fixture: ClientFixture, params: Record<string, string>) => {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form = new URLSearchParams(params);
  if (fixture.secret)
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(fixture.client.id)}:${encodeURIComponent(fixture.secret)}`).toString('base64')}`;
  else form.set('client_id', fixture.client.id);
  return { headers, body: form };
};

/** POST /device_authorization as the client would. */
export async function requestDeviceAuthorization(
  baseUrl: string,
  fixture: ClientFixture,
  params: Record<string, string> = { scope: 'openid offline_access' },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/device_authorization`, { method: 'POST', ...clientForm(fixture, params) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function startDevice(baseUrl: string, fixture: ClientFixture, scope = 'openid offline_access'): Promise<DeviceAuthorizationBody> {
  const { status, body } = await requestDeviceAuthorization(baseUrl, fixture, { scope });
  if (status !== 200) throw new Error(`device authorization refused: ${status} ${JSON.stringify(body)}`);
  return body as unknown as DeviceAuthorizationBody;
}

/** One poll of /token with the device_code. */
export async function pollToken(
  baseUrl: string,
  fixture: ClientFixture,
  deviceCode: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = clientForm(fixture, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode });
  const response = await fetch(`${baseUrl}/token`, { method: 'POST', headers: { ...request.headers, ...headers }, body: request.body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** GET /device (for the form's CSRF cookie and token) and POST the code; returns the answer to the POST. */
export async function enterUserCode(browser: Browser, userCode: string, headers: Record<string, string> = {}): Promise<Response> {
  const page = await browser.get('/device', headers);
  const form = parseForm(await page.text());
  return browser.post(form.action, { ...form.hidden, user_code: userCode }, headers);
}

/**
 * Enters the code, signs in with the password, and answers the consent with `decision`; returns the result
 * page's URL (/device/result?outcome=…) and the consent page's HTML on the way.
 */
export async function approveOnDevicePage(
  baseUrl: string,
  userCode: string,
  username: string,
  decision: 'allow' | 'deny' = 'allow',
  browser = new Browser(baseUrl),
): Promise<{ result: URL; consentHtml: string }> {
  let response = await enterUserCode(browser, userCode);
  let consentHtml = '';
  for (let step = 0; step < 10; step++) {
    if (response.status === 303) {
      const target = new URL(response.headers.get('location')!, baseUrl);
      if (target.pathname === '/device/result') return { result: target, consentHtml };
      response = await browser.get(target);
      continue;
    }
    if (response.status !== 200) throw new Error(`unexpected ${response.status}: ${(await response.text()).slice(0, 300)}`);
    const html = await response.text();
    const form = parseForm(html);
    if (/name="password"/.test(html)) {
      response = await browser.post(form.action, { ...form.hidden, username, password: PASSWORD });
    } else {
      consentHtml = html;
      response = await browser.post(form.action, { ...form.hidden, decision });
    }
  }
  throw new Error('the device flow never reached its result page');
}
