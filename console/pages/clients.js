// @ts-check
// Applications (OAuth clients): list, create (the secret is shown once), edit, disable or enable, rotate the
// secret, delete, and a try-it authorization URL for clients that sign users in. The built-in clients
// (the console's own, the demo's) are shown read-only: the API refuses changes to them (409).
import { api, etagOf, walk } from '../api.js';
import { checkbox, field, formValues, h, idempotencyKey, lines, randomId, replace, table, when } from '../dom.js';
import { canWrite } from '../auth.js';
import { actionForm, link, navigate, rerender, secretOnce, section } from '../ui.js';

const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'];

/** The writable members as form fields, filled from `c` when editing. @param {any} [c] */
function clientFields(c) {
  return [
    field('Name', { name: 'client_name', value: c?.client_name ?? '', required: true }),
    c
      ? null
      : field(
          'Type',
          { tag: 'select', name: 'token_endpoint_auth_method', value: 'client_secret_basic' },
          { options: ['client_secret_basic', 'client_secret_post', 'none'], hint: '“none” is a public client (a browser or mobile app, PKCE, no secret).' },
        ),
    h(
      'fieldset',
      null,
      h('legend', null, 'Grant types'),
      GRANT_TYPES.map((g) => checkbox(g, { name: `grant_${g}`, checked: c ? c.grant_types.includes(g) : g === 'authorization_code' })),
    ),
    field(
      'Redirect URIs',
      { tag: 'textarea', name: 'redirect_uris', rows: 3, value: (c?.redirect_uris ?? []).join('\n') },
      { hint: 'One per line; required with authorization_code.' },
    ),
    field(
      'Post-logout redirect URIs',
      { tag: 'textarea', name: 'post_logout_redirect_uris', rows: 2, value: (c?.post_logout_redirect_uris ?? []).join('\n') },
      { hint: 'One per line.' },
    ),
    field(
      'Allowed browser origins',
      { tag: 'textarea', name: 'allowed_origins', rows: 2, value: (c?.allowed_origins ?? []).join('\n') },
      { hint: 'One per line (CORS at the token endpoints).' },
    ),
    field('Scope', { name: 'scope', value: c?.scope ?? 'openid profile' }, { hint: 'Space-separated.' }),
    checkbox('Every sign-in needs a second factor', { name: 'require_mfa', checked: c?.require_mfa ?? false }),
  ];
}

/** @param {HTMLFormElement} form */
function clientBody(form) {
  const v = formValues(form);
  return {
    client_name: v.client_name,
    grant_types: GRANT_TYPES.filter((g) => v[`grant_${g}`] === true),
    redirect_uris: lines(v.redirect_uris),
    post_logout_redirect_uris: lines(v.post_logout_redirect_uris),
    allowed_origins: lines(v.allowed_origins),
    scope: String(v.scope).trim(),
    require_mfa: v.require_mfa,
    ...(v.token_endpoint_auth_method ? { token_endpoint_auth_method: v.token_endpoint_auth_method } : {}),
  };
}

/** @param {HTMLElement} main */
export async function clientsPage(main) {
  const { items, more } = await walk('/clients', 500);
  const key = idempotencyKey();
  const created = h('div');
  replace(
    main,
    h('h1', null, 'Applications'),
    table(
      'Registered applications (OAuth clients)',
      ['Name', 'Client id', 'Kind', 'Grant types', 'State'],
      items.map((c) =>
        h(
          'tr',
          null,
          h('td', null, link(`/console/clients/${encodeURIComponent(c.client_id)}`, c.client_name)),
          h('td', null, h('code', null, c.client_id)),
          h('td', null, c.client_type),
          h('td', null, c.grant_types.join(', ')),
          h('td', null, c.disabled ? 'Disabled' : 'Enabled'),
        ),
      ),
    ),
    more ? h('p', null, 'Only the first 500 applications are shown.') : null,
    canWrite()
      ? section(
          'Register an application',
          created,
          actionForm({
            label: 'Register an application',
            submit: 'Register application',
            fields: clientFields(),
            action: async (form) => {
              const answer = await api('/clients', { method: 'POST', body: clientBody(form), idempotencyKey: key });
              const c = answer.body;
              replace(
                created,
                h(
                  'div',
                  { class: 'notice' },
                  h(
                    'p',
                    null,
                    'Registered ',
                    link(`/console/clients/${encodeURIComponent(c.client_id)}`, c.client_name),
                    ' with client id ',
                    h('code', null, c.client_id),
                    '.',
                  ),
                  c.client_secret ? secretOnce('Client secret', c.client_secret) : null,
                ),
              );
              /** @type {HTMLElement | null} */ (created.querySelector('a'))?.focus();
              return 'Registered.';
            },
          }),
        )
      : null,
  );
  return 'Applications';
}

/** An authorization URL to try the client with (a fresh PKCE pair, as `gatehouse clients create` prints). @param {any} c */
async function tryIt(c) {
  const verifier = randomId(32);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  const url = new URL('/authorize', location.origin);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: c.client_id,
    redirect_uri: c.redirect_uris[0],
    scope: c.scope,
    state: randomId(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  return section(
    'Try it',
    h('p', null, 'Open this URL to sign in to the application; redeem the code with this verifier.'),
    h('p', null, h('code', { class: 'wrap', 'data-try-it': true }, url.href)),
    h('p', null, 'code_verifier: ', h('code', null, verifier)),
  );
}

/** @param {HTMLElement} main @param {string[]} params */
export async function clientPage(main, [id = '']) {
  const path = `/clients/${encodeURIComponent(id)}`;
  const read = await api(path);
  const c = read.body;
  let etag = read.etag;
  // The console's own client cannot be changed through the API (a disabled one would lock every operator out).
  const writable = canWrite() && !c.built_in;
  const rotated = h('div');
  const rotateKey = idempotencyKey();
  replace(
    main,
    h('p', { class: 'crumbs' }, link('/console/clients', 'Applications'), ' / ', c.client_name),
    h('h1', null, `Application ${c.client_name}`),
    h(
      'p',
      { class: 'muted' },
      'Client id ',
      h('code', null, c.client_id),
      ` · ${c.client_type} · ${c.token_endpoint_auth_method} · updated `,
      when(c.updated_at),
    ),
    c.disabled
      ? h('p', { class: 'notice warning' }, h('strong', null, 'This application is disabled. '), 'Sign-ins and token requests for it are refused.')
      : null,
    c.built_in ? h('p', { class: 'notice' }, 'Built into Gatehouse: it is registered at each start and cannot be changed here.') : null,
    writable
      ? section(
          'Settings',
          actionForm({
            label: 'Application settings',
            submit: 'Save settings',
            fields: clientFields(c),
            action: async (form) => {
              await api(path, { method: 'PATCH', body: clientBody(form), etag, contentType: 'application/merge-patch+json' });
              rerender('Saved.');
              return 'Saved.';
            },
          }),
        )
      : section(
          'Settings',
          h(
            'dl',
            null,
            ['grant_types', 'redirect_uris', 'post_logout_redirect_uris', 'allowed_origins', 'scope'].map((k) => [
              h('dt', null, k.replaceAll('_', ' ')),
              h('dd', null, Array.isArray(c[k]) ? c[k].join(', ') || '—' : c[k]),
            ]),
          ),
        ),
    c.grant_types.includes('authorization_code') && c.redirect_uris.length ? await tryIt(c) : null,
    writable && c.client_type === 'confidential'
      ? section(
          'Secret',
          rotated,
          actionForm({
            label: 'Rotate the client secret',
            submit: 'Rotate secret',
            confirm: 'Make a new secret? The current one stops working at once.',
            fields: [],
            action: async () => {
              const answer = await api(`${path}/secrets`, { method: 'POST', body: {}, idempotencyKey: rotateKey });
              replace(rotated, secretOnce('New client secret', answer.body.client_secret));
              // The rotation is a change of the client: later edits and the delete need its new ETag.
              etag = await etagOf(path);
              return 'Rotated.';
            },
          }),
        )
      : null,
    writable
      ? section(
          c.disabled ? 'Enable' : 'Disable',
          c.disabled
            ? actionForm({
                label: 'Enable this application',
                submit: 'Enable application',
                fields: [h('p', null, 'Users can sign in to it and it can get tokens again. Tokens ended when it was disabled stay ended.')],
                action: async () => {
                  await api(path, { method: 'PATCH', body: { disabled: false }, etag, contentType: 'application/merge-patch+json' });
                  rerender('Enabled.');
                  return 'Enabled.';
                },
              })
            : actionForm({
                label: 'Disable this application',
                submit: 'Disable application',
                danger: true,
                confirm: `Disable ${c.client_name}? Every token it holds stops working, and it cannot sign users in or get tokens until enabled again.`,
                fields: [h('p', null, 'Every token it holds stops working at once; its settings are kept, so it can be enabled again.')],
                action: async () => {
                  await api(path, { method: 'PATCH', body: { disabled: true }, etag, contentType: 'application/merge-patch+json' });
                  rerender('Disabled.');
                  return 'Disabled.';
                },
              }),
        )
      : null,
    writable
      ? section(
          'Delete',
          actionForm({
            label: 'Delete this application',
            submit: 'Delete application',
            danger: true,
            confirm: `Delete ${c.client_name}? Its grants are revoked.`,
            fields: [],
            action: async () => {
              await api(path, { method: 'DELETE', etag });
              navigate('/console/clients');
            },
          }),
        )
      : null,
  );
  return `Application ${c.client_name}`;
}
