// The self-service flows end to end with real e-mail (docs/email.md): a real SMTP server in this process
// (smtp-server), the app sending through nodemailer over SMTP_URL, Chromium at 390 px following the links
// from the received messages:
// - sign-up from the login page of an authorization request → verification link → sign-in → the code
//   arrives at the client (the original request continued);
// - forgotten password → link → new password → sign-in with it; the "password changed" notice arrives;
// - e-mail change on /account → link to the new address → the old address is told.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { fitsAndShoot, launchChromium, startClientPage, typeInto, type ChromiumProfile } from '../helpers/chromium.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { linksIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { createUser, SIGN_IN } from '../helpers/users.js';
import { authorizeQuery } from '../interaction/browserless.js';
import { selfServiceApp } from './self-service-world.js';

const OUTPUT = join(process.cwd(), 'test-output', 'self-service');
let smtp: TestSmtpServer;
let t: TestApp;
let chromium: ChromiumProfile;
let clientPage: { server: Server; redirectUri: string };
let clientId: string;

before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  smtp = await startSmtpServer();
  t = await selfServiceApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Gatehouse Test <no-reply@example.test>' });
  clientPage = await startClientPage();
  clientId = (await createClient(t.core.db, t.core.clock, { name: 'Self-service Shop', skipConsent: true, redirectUris: [clientPage.redirectUri] })).client.id;
  chromium = await launchChromium();
});
after(async () => {
  await chromium?.close();
  await new Promise((resolve) => clientPage?.server.close(resolve));
  await t?.close();
  await smtp?.stop();
});

async function mailTo(email: string, subject: RegExp, path: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const mail = smtp.received.find((m) => m.to.includes(email) && subject.test(m.decoded));
    if (mail) {
      const link = linksIn(mail).find((l) => l.includes(path));
      assert.ok(link, mail.decoded);
      return link;
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${email} matching ${subject}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function newPage(): Promise<Page> {
  await chromium.context.clearCookies();
  const page = await chromium.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  return page;
}

test('sign-up in Chromium over SMTP: "Create an account" → verification link from the received mail → sign-in → the code arrives at the client', async () => {
  const page = await newPage();
  try {
    await page.goto(t.url + authorizeQuery(clientId, clientPage.redirectUri, { state: 'signup-state' }));
    await page.getByRole('link', { name: 'Create an account' }).click();
    await fitsAndShoot(page, OUTPUT, 'signup-1-form');
    await typeInto(page, 'E-mail address', 'newcomer@example.test');
    await typeInto(page, 'Name', 'New Comer');
    await typeInto(page, 'Password', 'newcomer password 1');
    await typeInto(page, 'Repeat the password', 'newcomer password 1', true);
    await page.getByText('Check your e-mail').waitFor();
    await fitsAndShoot(page, OUTPUT, 'signup-2-check-mail');

    const link = await mailTo('newcomer@example.test', /Confirm your e-mail address/, '/signup/verify');
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirm and create the account' }).click();
    await page.getByText('Your account is ready').waitFor();
    await fitsAndShoot(page, OUTPUT, 'signup-3-ready');
    await page.getByRole('link', { name: 'Continue' }).click();
    await typeInto(page, 'Username', 'newcomer@example.test');
    await typeInto(page, 'Password', 'newcomer password 1', true);
    await page.getByText('Back at the client').waitFor();
    const back = new URL(page.url());
    assert.ok(back.searchParams.get('code'), 'the original authorization request ends with a code at the client');
    assert.equal(back.searchParams.get('state'), 'signup-state');
  } finally {
    await page.close();
  }
});

test('forgotten password in Chromium over SMTP: link from the mail → new password → sign-in with it; the "password changed" notice arrives', async () => {
  await createUser(t.core.db, t.core.clock, { ...SIGN_IN, username: 'forgetful', profile: { email: 'forgetful@example.test', email_verified: true } });
  const page = await newPage();
  try {
    await page.goto(t.url + authorizeQuery(clientId, clientPage.redirectUri, { state: 'reset-state' }));
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await typeInto(page, 'E-mail address', 'forgetful@example.test', true);
    await page.getByText('Check your e-mail').waitFor();
    await fitsAndShoot(page, OUTPUT, 'reset-1-check-mail');
    const link = await mailTo('forgetful@example.test', /Reset your Gatehouse password/, '/password/reset');
    await page.goto(link);
    await typeInto(page, 'New password', 'remembered at last');
    await typeInto(page, 'Repeat the password', 'remembered at last', true);
    await page.getByText('Your password is changed').waitFor();
    await fitsAndShoot(page, OUTPUT, 'reset-2-done');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await typeInto(page, 'Username', 'forgetful');
    await typeInto(page, 'Password', 'remembered at last', true);
    await page.getByText('Back at the client').waitFor();
    assert.ok(new URL(page.url()).searchParams.get('code'));
    await mailTo('forgetful@example.test', /password was changed/, '/account');
  } finally {
    await page.close();
  }
});

test('e-mail change in Chromium over SMTP: /account → link to the new address → the address changes and the old one is told', async () => {
  await createUser(t.core.db, t.core.clock, { ...SIGN_IN, username: 'mover', profile: { email: 'before@example.test', email_verified: true } });
  const page = await newPage();
  try {
    await page.goto(`${t.url}/account`);
    await typeInto(page, 'Username', 'mover');
    await typeInto(page, 'Password', 'correct horse battery staple', true);
    await page.getByText('Signed in as').waitFor();
    await typeInto(page, 'New e-mail address', 'after@example.test', true);
    await page.getByText('We sent a link to the new address').waitFor();
    await fitsAndShoot(page, OUTPUT, 'email-1-sent');
    const link = await mailTo('after@example.test', /Confirm your new e-mail address/, '/email/verify');
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirm the new address' }).click();
    await page.getByText('Your e-mail address is changed').waitFor();
    await fitsAndShoot(page, OUTPUT, 'email-2-changed');
    await mailTo('before@example.test', /after@example\.test/, '/account');
  } finally {
    await page.close();
  }
});
