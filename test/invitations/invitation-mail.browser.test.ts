// Invitations end to end with real e-mail (docs/email.md, docs/outbox.md): a real SMTP server in this process
// (smtp-server), the app sending through nodemailer over SMTP_URL, Chromium at 390 px following the link from
// the received message. Several app instances share one database, as in production:
// - the invitation mail arrives → its link → set password → the invitee signs in; the used link is refused;
// - two instances racing over the same messages deliver each exactly once;
// - a crash between commit and send (a server process killed while its SMTP server hangs mid-message) still
//   delivers the message, once, after another instance takes over;
// - SMTP down for a while: the failure is visible (admin API), and the message is delivered once it returns.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminFixture, createBody, type AdminFixture } from '../admin/fixture.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { startServerProcess } from '../helpers/server-process.js';
import { fitsAndShoot, launchChromium, typeInto, type ChromiumProfile } from '../helpers/chromium.js';
import { linksIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { openPostgres, type Database } from '../../src/storage/driver/database.js';
import { LEASE_MS } from '../../src/outbox/outbox.js';
import { freePort } from '../../scripts/pg-cluster.mjs';

const OUTPUT = join(process.cwd(), 'test-output', 'invitations');
const KEK = randomBytes(32).toString('base64url');
let smtp: TestSmtpServer;
let shared: { url: string; drop(): Promise<void> };
let database: Database;
let f: AdminFixture;
let chromium: ChromiumProfile;

before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  smtp = await startSmtpServer();
  shared = await createPostgresDatabaseUrl();
  database = await openPostgres(shared.url, 5);
  f = await adminFixture({ database, env: { SMTP_URL: smtp.url, KEY_ENCRYPTION_KEY: KEK, MAIL_FROM: 'Gatehouse Test <no-reply@example.test>' } });
  chromium = await launchChromium();
});
after(async () => {
  await chromium?.close();
  await f?.t.close();
  await database?.close();
  await shared?.drop();
  await smtp?.stop();
});

/** Another instance on the same database (its own connections), with its own clock and SMTP server. */
async function instance(smtpUrl: string, clock?: { now(): number }): Promise<{ t: TestApp; database: Database }> {
  const own = await openPostgres(shared.url, 5);
  const t = await startTestApp({ database: own, env: { SMTP_URL: smtpUrl, KEY_ENCRYPTION_KEY: KEK }, ...(clock ? { clock } : {}) });
  return { t, database: own };
}

async function invite(email: string, headers: Record<string, string> = {}) {
  const init = createBody({ email }, randomUUID());
  const res = await f.api('/admin/v1/users/invitations', { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as { id: string; user_id: string };
}

const mailsTo = (server: TestSmtpServer, email: string) => server.received.filter((m) => m.to.includes(email));
const rowFor = (email: string) => database.db.selectFrom('outbox_messages').selectAll().where('recipient', '=', email).executeTakeFirstOrThrow();

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('invitation e-mail over SMTP → link → choose password (390 px) → the invitee signs in; the used link is refused', async () => {
  const email = 'grace@example.test';
  await invite(email);
  await until('the invitation mail', () => mailsTo(smtp, email).length === 1);
  const mail = mailsTo(smtp, email)[0]!;
  assert.match(mail.raw, /^From: Gatehouse Test <no-reply@example\.test>/m);
  assert.match(mail.raw, /multipart\/alternative/);
  assert.match(mail.raw, /^Auto-Submitted: auto-generated/m);
  assert.equal(mail.messageId, `<${(await rowFor(email)).id}@127.0.0.1>`);
  const link = linksIn(mail).find((l) => l.includes('/invitation?token='));
  assert.ok(link, mail.decoded);

  const page = await chromium.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(link);
  await fitsAndShoot(page, OUTPUT, '1-choose-password');
  await typeInto(page, 'New password', 'correct horse battery');
  await typeInto(page, 'Repeat the password', 'correct horse battery', true);
  await page.getByText('Your password is set').waitFor();
  await fitsAndShoot(page, OUTPUT, '2-password-set');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await typeInto(page, 'Username', email);
  await typeInto(page, 'Password', 'correct horse battery', true);
  await page.getByText('Signed in as').waitFor();

  await page.goto(link);
  await page.getByText('not valid any more').waitFor();
  await fitsAndShoot(page, OUTPUT, '3-link-used');
  await page.close();
  const row = await rowFor(email);
  assert.deepEqual([row.state, row.attempts, row.sealed_secret], ['delivered', 1, null]);
});

test('outbox exactly once across instances: two app instances on one database racing over 20 messages send each exactly once', async () => {
  const second = await instance(smtp.url);
  const workers = [f.t.app.core.outboxWorker, second.t.app.core.outboxWorker];
  try {
    for (const w of workers) await w.stop();
    const emails = Array.from({ length: 20 }, (_, i) => `race${i}@example.test`);
    const before = smtp.received.length;
    for (const email of emails) await f.cli('users', 'invite', '--email', email);
    for (const w of workers) w.start();
    await smtp.waitFor(before + 20);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // room for a duplicate to show up
    for (const email of emails) assert.equal(mailsTo(smtp, email).length, 1, email);
    const ids = smtp.received.slice(before).map((m) => m.messageId);
    assert.equal(new Set(ids).size, 20);
  } finally {
    await second.t.close();
    await second.database.close();
    f.t.app.core.outboxWorker.start();
  }
});

test('outbox crash between commit and send: a server killed while sending loses nothing — another instance delivers the message once after the lease', async () => {
  const hanging = await startSmtpServer({ stall: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-crash-'));
  const port = await freePort();
  const child = await startServerProcess(
    { DATABASE_URL: shared.url, KEY_ENCRYPTION_KEY: KEK, SMTP_URL: hanging.url, DATA_DIR: dataDir, NODE_ENV: 'test' },
    { port },
  );
  const email = 'crash@example.test';
  try {
    await f.t.app.core.outboxWorker.stop(); // only the child may pick the message up
    await f.cli('users', 'invite', '--email', email);
    await until('the child to start sending', () => hanging.dataStarted() >= 1);
    assert.equal((await rowFor(email)).state, 'delivering');
    await child.stop('SIGKILL');
  } finally {
    await child.stop('SIGKILL');
    await hanging.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  assert.deepEqual(
    hanging.errors.map((e) => e.message),
    [],
    'the killed sender only reset its connection',
  );
  assert.equal(mailsTo(smtp, email).length, 0);
  // The next instance's clock is past the dead worker's lease (the one clock: no sleeping two minutes).
  const later = await instance(smtp.url, { now: () => Date.now() + LEASE_MS + 5_000 });
  try {
    await until('the message after the crash', () => mailsTo(smtp, email).length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(mailsTo(smtp, email).length, 1, 'delivered exactly once');
    const row = await rowFor(email);
    assert.deepEqual([row.state, row.attempts], ['delivered', 2]);
  } finally {
    await later.t.close();
    await later.database.close();
  }
});

test('SMTP down for a while: the failure shows in the admin API and the metrics, and the message is delivered once the server is back', async () => {
  const outage = await startSmtpServer();
  await outage.stop(); // the port is known; nothing listens on it
  let shift = 0;
  const other = await instance(outage.url, { now: () => Date.now() + shift });
  const email = 'outage@example.test';
  try {
    await f.t.app.core.outboxWorker.stop(); // only the instance facing the outage may send it
    await f.cli('users', 'invite', '--email', email);
    await until('a failed attempt', async () => (await rowFor(email)).attempts >= 1 && (await rowFor(email)).state === 'pending');
    const listed = (await (await f.api('/admin/v1/outbox?state=pending&channel=email')).json()) as {
      data: { recipient: string; last_error: string | null; attempts: number }[];
    };
    const entry = listed.data.find((m) => m.recipient === email);
    assert.ok(entry?.last_error?.includes('SMTP'), JSON.stringify(entry));
    assert.match(await other.t.app.metrics.metrics(), /outbox_deliveries_total\{channel="email",outcome="retry"\} [1-9]/);

    await outage.start(); // the server is back …
    shift = 60_000; // … and the back-off (10–12 s after the first failure) has passed
    await outage.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(mailsTo(outage, email).length, 1);
    assert.equal((await rowFor(email)).state, 'delivered');
  } finally {
    await other.t.close();
    await other.database.close();
    await outage.stop();
    f.t.app.core.outboxWorker.start();
  }
});
