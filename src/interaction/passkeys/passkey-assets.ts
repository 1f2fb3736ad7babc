// The two script files of the passkey pages, both from our own origin (the pages' CSP is script-src 'self';
// no CDN, no inline script): @simplewebauthn/browser's UMD bundle, read once from the installed package, and
// our small script that runs the ceremonies against the JSON endpoints. Both change only with a release.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

const WEBAUTHN_BUNDLE_PATH = '/assets/simplewebauthn-browser.js';
const PASSKEY_SCRIPT_PATH = '/assets/passkeys.js';
/** In the order the pages load them (`defer` keeps it): the library first. */
export const PASSKEY_SCRIPTS = [WEBAUTHN_BUNDLE_PATH, PASSKEY_SCRIPT_PATH] as const;

/** The package's browser bundle (it defines the global SimpleWebAuthnBrowser). */
function webauthnBundle(): string {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  // entry is <package>/script/index.js; the bundle lives at <package>/dist/bundle/.
  return readFileSync(join(dirname(dirname(entry)), 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
}

// Each [data-passkey] section is hidden until this script finds WebAuthn support, so a page without script
// (or without passkeys) shows only its forms. The section's form posts JSON with the page's CSRF token:
// first for options, then the browser's answer for verification; the answer says where to go next.
const passkeyScript = `'use strict';
(() => {
  const lib = window.SimpleWebAuthnBrowser;
  if (!lib || !lib.browserSupportsWebAuthn()) return;
  const post = async (url, body) => {
    const response = await fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.detail || 'The passkey could not be used. Try again.');
    return answer;
  };
  for (const section of document.querySelectorAll('[data-passkey]')) {
    const form = section.querySelector('form');
    const status = section.querySelector('[data-passkey-status]');
    const button = form.querySelector('button');
    section.hidden = false;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      button.disabled = true;
      status.className = 'muted';
      status.textContent = 'Waiting for your passkey…';
      try {
        const csrf = form.elements.csrf.value;
        const optionsJSON = await post(section.dataset.optionsUrl, { csrf });
        const register = section.dataset.passkey === 'register';
        const response = register ? await lib.startRegistration({ optionsJSON }) : await lib.startAuthentication({ optionsJSON });
        const body = register ? { csrf, name: form.elements.name.value, response } : { csrf, response };
        const next = await post(section.dataset.verifyUrl, body);
        window.location.assign(next.redirect);
      } catch (error) {
        status.className = 'error';
        status.textContent = error instanceof Error && error.name !== 'NotAllowedError' ? error.message : 'The passkey was not used. Try again.';
        button.disabled = false;
      }
    });
  }
})();
`;

export function passkeyAssetRoutes(app: FastifyInstance): void {
  const bundle = webauthnBundle();
  app.get(WEBAUTHN_BUNDLE_PATH, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=86400').type('text/javascript; charset=utf-8');
    return bundle;
  });
  app.get(PASSKEY_SCRIPT_PATH, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8');
    return passkeyScript;
  });
}
