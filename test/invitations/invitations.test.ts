// Invitations over real HTTP (docs/email.md), the mail read from the development mailbox (the SMTP path is
// invitation-mail.browser.test.ts): the admin API and the CLI invite, list and revoke; the link sets the
// password once, marks the address verified and is refused after use, revocation, expiry, or a change of
// the password; two parallel submissions of one link set one password; the link never appears in a
// response or in the outbox's row; without SMTP_URL in production the feature is off and says so.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { adminFixture, createBody, type AdminFixture } from '../admin/fixture.js';
import { startTestApp } from '../helpers/app.js';
import { verifyPassword } from '../../src/crypto/passwords.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import type { DevMailbox } from '../../src/mail/dev-mailbox.js';

let f: AdminFixture;
let clockOffset = 0;
before(async () => {
  f = await adminFixture({ clock: { now: () => Date.now() + clockOffset } });
});
after(() => f.t.close());

const mailbox = () => f.t.app.core.mail.devMailbox as DevMailbox;

async function invite(email: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const init = createBody({ email, ...extra }, randomUUID());
  const res = await f.api('/admin/v1/users/invitations', { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
  return { res, body: (await res.json()) as Record<string, string> };
}

/** Delivers the outbox now and returns the link of the newest message to `email`. */
async function linkFor(email: string): Promise<string> {
  await f.t.app.core.outboxWorker.drain();
  const mail = mailbox()
    .messages()
    .find((m) => m.to === email);
  assert.ok(mail, `a message to ${email}`);
  const link = /https?:\/\/\S+\/invitation\?token=\S+/.exec(mail.text)?.[0];
  assert.ok(link, mail.text);
  return link;
}

const submit = (password: string, token: string, confirm = password, lang = 'en') =>
  fetch(`${f.t.url}/invitation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': lang },
    body: new URLSearchParams({ token, password, confirm }),
  });
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
const userOf = async (id: string) => (await usersRepository(f.t.core.db, f.t.core.clock).findById(id))!;

test('POST /admin/v1/users/invitations creates the account and mails a link; the link sets the password once and marks the e-mail verified', async () => {
  const { res, body } = await invite('ada@example.test', { name: 'Ada' });
  assert.equal(res.status, 201, JSON.stringify(body));
  assert.equal(body.email, 'ada@example.test');
  assert.doesNotMatch(JSON.stringify(body), /token/i, 'the response never carries the link');
  const link = await linkFor('ada@example.test');
  const mail = mailbox().messages()[0]!;
  assert.match(mail.subject, /invited/);
  assert.match(mail.html, /Hello Ada/);
  assert.doesNotMatch(
    JSON.stringify(await f.t.core.db.selectFrom('outbox_messages').selectAll().execute()),
    new RegExp(tokenOf(link)),
    'no outbox row holds the link',
  );

  const user = await userOf(body.user_id!);
  assert.equal(user.email_verified, false);
  assert.equal(await verifyPassword(user.passwordHash, 'a new password'), false);

  const page = await fetch(link);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Choose your password/);
  assert.equal((await submit('a new password', tokenOf(link))).status, 200);
  const after = await userOf(body.user_id!);
  assert.equal(after.email_verified, true);
  assert.equal(await verifyPassword(after.passwordHash, 'a new password'), true);

  const events = (await (await f.api(`/admin/v1/audit-events?subject=${body.user_id}`)).json()) as { data: { type: string }[] };
  assert.deepEqual(events.data.map((e) => e.type).sort(), ['admin.user.invited', 'user.invitation_accepted']);
});

test('invitation links are single use: a used link is refused (GET and POST), and the password stays', async () => {
  const { body } = await invite('reuse@example.test');
  const link = await linkFor('reuse@example.test');
  assert.equal((await submit('first password', tokenOf(link))).status, 200);
  assert.equal((await fetch(link)).status, 410);
  const again = await submit('second password', tokenOf(link));
  assert.equal(again.status, 410);
  assert.match(await again.text(), /not valid any more/);
  assert.equal(await verifyPassword((await userOf(body.user_id!)).passwordHash, 'first password'), true);
});

test('invitation links are single use under parallel submissions: of 8 at once exactly one sets its password', async () => {
  const { body } = await invite('race@example.test');
  const token = tokenOf(await linkFor('race@example.test'));
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(`parallel password ${i}`, token)));
  const statuses = results.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 410, 410, 410, 410, 410, 410, 410]);
  const winner = results.findIndex((r) => r.status === 200);
  assert.equal(await verifyPassword((await userOf(body.user_id!)).passwordHash, `parallel password ${winner}`), true);
});

test('a revoked invitation is refused, and leaves the pending list; the CLI invites, lists and revokes the same way', async () => {
  const { body } = await invite('revoke@example.test');
  const link = await linkFor('revoke@example.test');
  const listed = (await (await f.api('/admin/v1/users/invitations')).json()) as { data: { id: string }[] };
  assert.ok(listed.data.some((i) => i.id === body.id));
  assert.equal((await f.api(`/admin/v1/users/invitations/${body.id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await f.api(`/admin/v1/users/invitations/${body.id}`, { method: 'DELETE' })).status, 404);
  assert.equal((await submit('a password', tokenOf(link))).status, 410);
  const after = (await (await f.api('/admin/v1/users/invitations')).json()) as { data: { id: string }[] };
  assert.ok(!after.data.some((i) => i.id === body.id));

  const created = await f.cli('users', 'invite', '--email', 'cli@example.test', '--name', 'Cli User', '--locale', 'de');
  assert.equal(created.email, 'cli@example.test');
  await linkFor('cli@example.test');
  const german = mailbox()
    .messages()
    .find((m) => m.to === 'cli@example.test')!;
  assert.match(german.subject, /Einladung/);
  assert.ok(((await f.cli('users', 'invitations')).invitations as { id: string }[]).some((i) => i.id === created.id));
  assert.deepEqual(await f.cli('users', 'revoke-invitation', String(created.id)), { id: created.id, revoked: true });
});

test('invitation links expire', async () => {
  await invite('late@example.test');
  const link = await linkFor('late@example.test');
  clockOffset = f.t.config.INVITATION_TTL * 1000 + 1000;
  try {
    assert.equal((await fetch(link)).status, 410);
    assert.equal((await submit('a password', tokenOf(link))).status, 410);
  } finally {
    clockOffset = 0;
  }
});

test('an invitation link is refused once the password it was for has changed (an operator set one meanwhile)', async () => {
  const { body } = await invite('changed@example.test');
  const link = await linkFor('changed@example.test');
  await f.cli('users', 'set-password', body.user_id!, '--password', 'the operator set this');
  assert.equal((await submit('a password', tokenOf(link))).status, 410);
  assert.equal(await verifyPassword((await userOf(body.user_id!)).passwordHash, 'the operator set this'), true);
});

test('the invitation page keeps the password rules and answers in the browser’s language', async () => {
  await invite('rules@example.test');
  const token = tokenOf(await linkFor('rules@example.test'));
  const short = await submit('short', token);
  assert.equal(short.status, 422);
  assert.match(await short.text(), /at least 8 characters/);
  const mismatch = await submit('long enough 1', token, 'long enough 2', 'de-CH,de;q=0.9,en;q=0.5');
  assert.equal(mismatch.status, 422);
  const html = await mismatch.text();
  assert.match(html, /<html lang="de">/);
  assert.match(html, /unterscheiden sich/);
  assert.equal((await submit('long enough 1', token)).status, 200, 'the link still works after refused attempts');
});

test('bad invitation input is a clear 422, a taken username a 409, never a 500', async () => {
  assert.equal((await invite('not an address')).res.status, 422);
  assert.equal((await invite('x@example.test', { unknown: 1 })).res.status, 400);
  await invite('twice@example.test');
  const { res, body } = await invite('twice@example.test');
  assert.equal(res.status, 409);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.match(body.detail ?? '', /taken/);
  assert.equal((await fetch(`${f.t.url}/invitation?token=${'x'.repeat(5000)}`)).status, 410);
  assert.equal((await fetch(`${f.t.url}/invitation`)).status, 410);
});

test('GET /admin/v1/outbox lists the messages and their delivery state, never the link', async () => {
  const res = await f.api('/admin/v1/outbox?channel=email&state=delivered&limit=2');
  assert.equal(res.status, 200);
  const page = (await res.json()) as { data: Record<string, unknown>[]; pagination: { has_more: boolean } };
  assert.equal(page.data.length, 2);
  assert.equal(page.data[0]!.state, 'delivered');
  assert.equal(page.data[0]!.kind, 'invitation');
  assert.doesNotMatch(JSON.stringify(page.data), /token|link/);
  assert.equal((await f.api('/admin/v1/outbox?state=lost')).status, 400);
  assert.equal((await f.api('/admin/v1/outbox', { token: 'nonsense' })).status, 401);
  // The app's registry, which the metrics listener serves (METRICS_PORT; the main listener has no /metrics).
  const metrics = await f.t.app.metrics.metrics();
  assert.match(metrics, /outbox_messages\{channel="email",state="delivered"\} \d+/);
  assert.match(metrics, /outbox_deliveries_total\{channel="email",outcome="delivered"\} \d+/);
});

test('the development mailbox page shows the messages with their links (development and tests without SMTP_URL)', async () => {
  const res = await fetch(`${f.t.url}/dev/mailbox`);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /<a href="http:\/\/127\.0\.0\.1:\d+\/invitation\?token=/);
});

test('e-mail off in production without SMTP_URL: no development mailbox, invitations refused with the reason, said at start', async () => {
  const { PassThrough } = await import('node:stream');
  const logs = new PassThrough();
  let text = '';
  logs.on('data', (c: Buffer) => (text += c.toString()));
  const t = await startTestApp({ env: { NODE_ENV: 'production' }, logStream: logs });
  try {
    assert.equal((await fetch(`${t.url}/dev/mailbox`)).status, 404);
    assert.match(text, /E-mail is not configured \(SMTP_URL is unset in production\)/);
    const { executeCommand } = await import('../../src/cli/execute.js');
    await assert.rejects(executeCommand(['users', 'invite', '--email', 'p@example.test'], t.core), /E-mail is not configured/);
  } finally {
    await t.close();
  }
});
