// E-mail's rules that need no server (the SMTP path itself runs against a real server in
// test/invitations/invitation-mail.browser.test.ts): the transport settings read from SMTP_URL, MAIL_FROM's
// refusal of header injection, the language choice, and the templates' escaping and branding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { smtpOptions } from '../../src/mail/smtp-transport.js';
import { chooseLocale } from '../../src/mail/catalogue.js';
import { renderInvitation } from '../../src/mail/templates.js';
import { parseConfig } from '../../src/config.js';
import { DEFAULT_BRAND } from '../../src/http/brand.js';

test('sign-in links never cross a network in clear: smtp:// to a remote host requires STARTTLS (loopback relays excepted), smtps:// is TLS from the start', () => {
  assert.equal(smtpOptions('smtp://user:pw@mail.example.com:587').requireTLS, true);
  assert.equal(smtpOptions('smtp://mail.example.com').port, 587);
  assert.equal(smtpOptions('smtp://127.0.0.1:2525').requireTLS, false);
  assert.equal(smtpOptions('smtp://localhost:25').requireTLS, false);
  const tls = smtpOptions('smtps://user:pw@mail.example.com');
  assert.deepEqual([tls.secure, tls.port, tls.requireTLS], [true, 465, false]);
});

test('SMTP credentials come from the URL (percent-decoded) or from SMTP_PASSWORD_FILE, which wins', () => {
  assert.deepEqual(smtpOptions('smtps://AKIA%2Fx:p%40ss@mail.example.com').auth, { user: 'AKIA/x', pass: 'p@ss' });
  assert.deepEqual(smtpOptions('smtps://AKIA@mail.example.com', 'from-file').auth, { user: 'AKIA', pass: 'from-file' });
  assert.equal(smtpOptions('smtp://127.0.0.1:25').auth, undefined);
});

test('SMTP_URL and MAIL_FROM are validated at start; MAIL_FROM refuses line breaks (header injection)', () => {
  assert.throws(() => parseConfig({ SMTP_URL: 'http://mail.example.com' }), /SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/);
  assert.throws(() => parseConfig({ MAIL_FROM: 'a@example.com\r\nBcc: victim@example.com' }), /MAIL_FROM/);
  assert.throws(() => parseConfig({ MAIL_FROM: 'not an address' }), /MAIL_FROM/);
  assert.equal(parseConfig({ MAIL_FROM: 'Accounts <accounts@example.com>' }).MAIL_FROM, 'Accounts <accounts@example.com>');
  assert.equal(parseConfig({ ISSUER: 'https://id.example.com', BRAND_NAME: 'Acme' }).MAIL_FROM, 'Acme <no-reply@id.example.com>');
});

test('the language is the first supported one asked for, by quality', () => {
  assert.equal(chooseLocale('fr-FR,fr;q=0.9,de;q=0.8,en;q=0.7'), 'de');
  assert.equal(chooseLocale('en;q=0.5, de;q=0.9'), 'de');
  assert.equal(chooseLocale('de;q=0, en'), 'en');
  assert.equal(chooseLocale(undefined, 'de-AT'), 'de');
  assert.equal(chooseLocale('xx', 'yy'), 'en');
});

test('templates escape every value, carry the branding and put the link in both bodies', () => {
  const brand = { ...DEFAULT_BRAND, name: 'Acme <Accounts>', logoUrl: '/logo.png', accentColor: '#aa0000' };
  const mail = renderInvitation(
    { brand, issuer: 'https://id.example.com', locale: 'en' },
    { name: '<script>x</script>', link: 'https://id.example.com/invitation?token=a&b', hours: 48 },
  );
  assert.doesNotMatch(mail.html, /<script>/);
  assert.match(mail.html, /&lt;script&gt;/);
  assert.match(mail.html, /Acme &lt;Accounts&gt;/);
  assert.match(mail.html, /src="https:\/\/id\.example\.com\/logo\.png"/);
  assert.match(mail.html, /background:#aa0000/);
  assert.match(mail.html, /href="https:\/\/id\.example\.com\/invitation\?token=a&amp;b"/);
  assert.match(mail.text, /https:\/\/id\.example\.com\/invitation\?token=a&b/);
  assert.match(mail.text, /expires in 48 hours/);
  const german = renderInvitation({ brand: DEFAULT_BRAND, issuer: 'https://id.example.com', locale: 'de' }, { link: 'https://x.test/', hours: 48 });
  assert.match(german.subject, /Einladung zu Gatehouse/);
  assert.match(german.html, /<html lang="de">/);
});
