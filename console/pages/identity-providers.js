// @ts-check
// Identity providers (federation, docs/federation.md): list, register one from a preset (Google, Microsoft,
// GitHub, GitLab) or as any OpenID Connect or plain OAuth 2.0 provider, show the redirect URI to register at
// the provider, edit, disable or enable, delete. Everything through /admin/v1/identity-providers, whose
// writes are whole documents (PUT with If-Match): the page sends back what it read with the changes made.
import { api, walk } from '../api.js';
import { checkbox, field, formValues, h, idempotencyKey, lines, replace, table, when } from '../dom.js';
import { canWrite } from '../auth.js';
import { actionForm, link, navigate, rerender, section } from '../ui.js';

/** What the operator chooses first: a preset, or a generic kind. Values are the select's. */
const SOURCES = [
  ['google', 'Google (preset)'],
  ['microsoft', 'Microsoft Entra ID (preset)'],
  ['github', 'GitHub (preset)'],
  ['gitlab', 'GitLab (preset; gitlab.com or your own)'],
  ['oidc', 'Any OpenID Connect provider'],
  ['oauth2', 'Any OAuth 2.0 provider'],
];
const PRESETS = ['google', 'microsoft', 'github', 'gitlab'];

/** Which fields a source shows (the others are hidden and not sent). @param {string} source */
const shows = (source) => ({
  issuer: source === 'oidc' || source === 'gitlab',
  tenants: source === 'microsoft',
  endpoints: source === 'oauth2',
  claims: source === 'oauth2' || source === 'github',
});

/** `local=upstream` lines ⇄ the claims object. @param {Record<string, string>} claims */
const claimLines = (claims) =>
  Object.entries(claims ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
/** @param {string | boolean | undefined} text */
function claimsOf(text) {
  /** @type {Record<string, string>} */
  const claims = {};
  for (const line of lines(text)) {
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`Claim mapping “${line}” is not LOCAL=UPSTREAM (for example sub=id).`);
    claims[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return claims;
}
/** @param {string | boolean | undefined} text */
const words = (text) =>
  String(text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);

/** The fields of a provider document, filled from `p` when editing; `source` picks which are visible. @param {string} source @param {any} [p] */
function providerFields(source, p) {
  const show = shows(source);
  const group = (/** @type {string} */ name, /** @type {boolean} */ visible, /** @type {(Node | null)[]} */ children) =>
    h('div', { 'data-group': name, hidden: !visible }, children);
  return [
    field('Display name', { name: 'name', value: p?.name ?? '' }, { hint: 'Shown as “Continue with NAME”. A preset names itself when this is empty.' }),
    p
      ? null
      : field(
          'Slug',
          { name: 'slug', autocomplete: 'off', spellcheck: 'false' },
          { hint: 'The redirect URI’s path segment (default: from the name). It never changes, since it is registered at the provider.' },
        ),
    group('issuer', show.issuer, [
      field(
        'Issuer',
        { name: 'issuer', type: 'url', value: p?.issuer ?? '', autocomplete: 'off' },
        { hint: 'Its discovery document (/.well-known/openid-configuration) gives the endpoints. GitLab: leave empty for gitlab.com.' },
      ),
    ]),
    group('tenants', show.tenants, [
      field(
        'Tenant ids',
        { tag: 'textarea', name: 'tenants', rows: 2, value: (p?.tenants ?? []).join('\n') },
        { hint: 'One per line. One tenant: only its accounts; none: any work or school account.' },
      ),
    ]),
    group('endpoints', show.endpoints, [
      field('Authorization endpoint', { name: 'authorization_endpoint', type: 'url', value: p?.authorization_endpoint ?? '' }),
      field('Token endpoint', { name: 'token_endpoint', type: 'url', value: p?.token_endpoint ?? '' }),
      field('User-info endpoint', { name: 'userinfo_endpoint', type: 'url', value: p?.userinfo_endpoint ?? '' }),
      field(
        'Token endpoint authentication',
        { tag: 'select', name: 'token_endpoint_auth_method', value: p?.token_endpoint_auth_method ?? 'client_secret_basic' },
        { options: ['client_secret_basic', 'client_secret_post'] },
      ),
    ]),
    group('claims', show.claims, [
      field(
        'Claim mappings',
        { tag: 'textarea', name: 'claims', rows: 4, value: claimLines(p?.claims ?? (source === 'oauth2' ? { sub: 'id' } : {})), spellcheck: 'false' },
        { hint: 'One LOCAL=UPSTREAM per line: which member of the user-info answer fills each claim (sub is required).' },
      ),
    ]),
    field(
      'Client id',
      { name: 'client_id', value: p?.client_id ?? '', required: true, autocomplete: 'off' },
      { hint: 'The id the provider issued to this Gatehouse.' },
    ),
    field(
      'Client secret variable',
      {
        name: 'client_secret_env',
        value: p?.client_secret_env ?? '',
        required: true,
        autocomplete: 'off',
        spellcheck: 'false',
        placeholder: 'GOOGLE_CLIENT_SECRET',
      },
      { hint: 'The NAME of the environment variable that holds the secret on the server. The secret itself is never sent or stored.' },
    ),
    field('Scopes', { name: 'scopes', value: (p?.scopes ?? []).join(' ') }, { hint: 'Space-separated; empty: the preset’s, or “openid email profile”.' }),
    field(
      'E-mail domains',
      { tag: 'textarea', name: 'domains', rows: 2, value: (p?.domains ?? []).join('\n') },
      { hint: 'One per line: an address of these domains on the login page goes to this provider.' },
    ),
    checkbox('Create a local user on a first sign-in', { name: 'provision', checked: p?.provision ?? false }),
    field(
      'Link to an existing account',
      { tag: 'select', name: 'link', value: p?.link ?? 'verified-email' },
      { options: ['verified-email', 'never'], hint: 'verified-email: after the user proves the account with the same verified address.' },
    ),
  ];
}

/** A Microsoft provider of one tenant stores that tenant's issuer (and no tenant list): keep it on a write. @param {any} [p] */
const oneTenantIssuer = (p) => (p?.preset === 'microsoft' && p.issuer && !String(p.issuer).includes('{tenantid}') ? p.issuer : undefined);

/** The document the form describes, for `source` (a preset or a kind); `p` is the provider being edited. @param {HTMLFormElement} form @param {string} source @param {any} [p] */
function providerDocument(form, source, p) {
  const v = formValues(form);
  const show = shows(source);
  const text = (/** @type {string} */ name) => String(v[name] ?? '').trim();
  const scopes = words(v.scopes);
  return {
    ...(PRESETS.includes(source) ? { preset: source } : { kind: source }),
    ...(text('name') ? { name: text('name') } : {}),
    ...(text('slug') ? { slug: text('slug') } : {}),
    ...(show.issuer && text('issuer') ? { issuer: text('issuer') } : {}),
    ...(show.tenants ? { tenants: lines(v.tenants) } : {}),
    ...(show.tenants && lines(v.tenants).length === 0 && oneTenantIssuer(p) ? { issuer: oneTenantIssuer(p) } : {}),
    ...(show.endpoints
      ? {
          authorization_endpoint: text('authorization_endpoint'),
          token_endpoint: text('token_endpoint'),
          ...(text('userinfo_endpoint') ? { userinfo_endpoint: text('userinfo_endpoint') } : {}),
          token_endpoint_auth_method: v.token_endpoint_auth_method,
        }
      : {}),
    ...(show.claims ? { claims: claimsOf(v.claims) } : {}),
    client_id: text('client_id'),
    client_secret_env: text('client_secret_env'),
    ...(scopes.length ? { scopes } : {}),
    domains: lines(v.domains),
    provision: v.provision,
    link: v.link,
  };
}

/** A provider's source: its preset, else its kind. @param {any} p */
const sourceOf = (p) => p.preset ?? p.kind;

/** @param {HTMLElement} main */
export async function identityProvidersPage(main) {
  const { items } = await walk('/identity-providers', 1000);
  const key = idempotencyKey();
  const source = field('Provider', { tag: 'select', name: 'source', value: 'google' }, { options: SOURCES.map(([value]) => value) });
  const select = /** @type {HTMLSelectElement} */ (source.querySelector('select'));
  // The options' words, not their values (the values are what the document carries).
  for (const option of Array.from(select.options)) option.textContent = SOURCES.find(([value]) => value === option.value)?.[1] ?? option.value;
  const form = canWrite()
    ? actionForm({
        label: 'Add an identity provider',
        submit: 'Add identity provider',
        fields: [source, ...providerFields('google')],
        action: async (f) => {
          const p = (await api('/identity-providers', { method: 'POST', body: providerDocument(f, select.value), idempotencyKey: key })).body;
          navigate(`/console/identity-providers/${encodeURIComponent(p.id)}`);
        },
      })
    : null;
  select.addEventListener('change', () => {
    const show = shows(select.value);
    for (const element of Array.from(form?.querySelectorAll('[data-group]') ?? [])) {
      const group = /** @type {HTMLElement} */ (element);
      group.hidden = !show[/** @type {keyof typeof show} */ (group.dataset.group)];
    }
    const claims = /** @type {HTMLTextAreaElement | null | undefined} */ (form?.querySelector('textarea[name=claims]'));
    if (claims && select.value === 'oauth2' && !claims.value) claims.value = 'sub=id';
  });
  replace(
    main,
    h('h1', null, 'Identity providers'),
    h(
      'p',
      null,
      'Other sign-in services (Google, Microsoft, GitHub, GitLab, any OpenID Connect or OAuth 2.0 provider) the login page offers as “Continue with …”.',
    ),
    items.length
      ? table(
          'Registered identity providers',
          ['Name', 'Slug', 'Kind', 'E-mail domains', 'State'],
          items.map((p) =>
            h(
              'tr',
              null,
              h('td', null, link(`/console/identity-providers/${encodeURIComponent(p.id)}`, p.name)),
              h('td', null, h('code', null, p.slug)),
              h('td', null, p.preset ? `${p.kind} (${p.preset})` : p.kind),
              h('td', null, p.domains.join(', ') || '—'),
              h('td', null, p.enabled ? 'Enabled' : 'Disabled'),
            ),
          ),
        )
      : h('p', null, 'No identity provider yet: users sign in with Gatehouse’s own accounts only.'),
    form
      ? section(
          'Add an identity provider',
          h(
            'p',
            null,
            'Register the redirect URI shown after adding at the provider, and put the client secret in the named environment variable of every Gatehouse instance.',
          ),
          form,
        )
      : null,
  );
  return 'Identity providers';
}

/** @param {HTMLElement} main @param {string[]} params */
export async function identityProviderPage(main, [id = '']) {
  const path = `/identity-providers/${encodeURIComponent(id)}`;
  const { body: p, etag } = await api(path);
  const source = sourceOf(p);
  /** The whole document as read (PUT replaces), with `changes` applied. @param {Record<string, unknown>} changes */
  const current = (changes) => {
    const show = shows(source);
    return {
      ...(p.preset ? { preset: p.preset } : { kind: p.kind }),
      name: p.name,
      ...(show.issuer && p.issuer ? { issuer: p.issuer } : {}),
      ...(show.tenants && p.tenants ? { tenants: p.tenants } : {}),
      ...(oneTenantIssuer(p) ? { issuer: oneTenantIssuer(p) } : {}),
      ...(show.endpoints
        ? {
            authorization_endpoint: p.authorization_endpoint,
            token_endpoint: p.token_endpoint,
            ...(p.userinfo_endpoint ? { userinfo_endpoint: p.userinfo_endpoint } : {}),
            token_endpoint_auth_method: p.token_endpoint_auth_method,
          }
        : {}),
      ...(show.claims ? { claims: p.claims } : {}),
      client_id: p.client_id,
      client_secret_env: p.client_secret_env,
      scopes: p.scopes,
      domains: p.domains,
      provision: p.provision,
      link: p.link,
      // Switches the page does not edit are sent back as read: PUT replaces, and an absent one means off
      // (store_tokens off deletes every stored upstream token of the provider).
      trust_mfa: p.trust_mfa,
      store_tokens: p.store_tokens,
      enabled: p.enabled,
      ...changes,
    };
  };
  const put = (/** @type {Record<string, unknown>} */ document) => api(path, { method: 'PUT', body: document, etag });
  const endpoints = /** @type {[string, string | null | undefined][]} */ ([
    ['Issuer', p.issuer],
    ['Authorization endpoint', p.authorization_endpoint],
    ['Token endpoint', p.token_endpoint],
    ['User-info endpoint', p.userinfo_endpoint],
    ['E-mails endpoint', p.emails_endpoint],
    ['Keys (JWKS)', p.jwks_uri],
  ]).filter(([, value]) => value);
  replace(
    main,
    h('p', { class: 'crumbs' }, link('/console/identity-providers', 'Identity providers'), ' / ', p.name),
    h('h1', null, `Identity provider ${p.name}`),
    h('p', { class: 'muted' }, 'Slug ', h('code', null, p.slug), ` · ${p.kind}${p.preset ? ` (preset ${p.preset})` : ''} · updated `, when(p.updated_at)),
    p.enabled
      ? null
      : h(
          'p',
          { class: 'notice warning' },
          h('strong', null, 'This provider is disabled. '),
          'The login page does not offer it and its callbacks are refused.',
        ),
    section(
      'Redirect URI',
      h('p', null, 'Register this redirect (callback) URI at the provider, for the client id ', h('code', null, p.client_id), ':'),
      h('p', null, h('code', { 'data-redirect-uri': true }, p.redirect_uri)),
    ),
    section(
      'Endpoints',
      h(
        'dl',
        null,
        endpoints.map(([label, value]) => [h('dt', null, label), h('dd', null, h('code', null, String(value)))]),
      ),
      p.kind === 'oidc' ? h('p', { class: 'hint' }, 'Read from the issuer’s discovery document; saving the settings reads it again.') : null,
    ),
    canWrite()
      ? section(
          'Settings',
          actionForm({
            label: 'Identity provider settings',
            submit: 'Save settings',
            fields: providerFields(source, p),
            action: async (form) => {
              // The switches this form does not show go back as read (absent means off in a PUT).
              await put({ ...providerDocument(form, source, p), trust_mfa: p.trust_mfa, store_tokens: p.store_tokens, enabled: p.enabled });
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
            [
              ['Client id', p.client_id],
              ['Client secret variable', p.client_secret_env],
              ['Scopes', p.scopes.join(' ')],
              ['E-mail domains', p.domains.join(', ') || '—'],
              ['Creates users', p.provision ? 'yes' : 'no'],
              ['Links accounts', p.link],
              ['Claim mappings', claimLines(p.claims) || '—'],
            ].map(([k, v]) => [h('dt', null, k), h('dd', null, v)]),
          ),
        ),
    canWrite()
      ? section(
          p.enabled ? 'Disable' : 'Enable',
          p.enabled
            ? actionForm({
                label: 'Disable this identity provider',
                submit: 'Disable identity provider',
                danger: true,
                confirm: `Disable ${p.name}? The login page stops offering it.`,
                fields: [h('p', null, 'The login page stops offering it; its settings and the users’ links are kept.')],
                action: async () => {
                  await put(current({ enabled: false }));
                  rerender('Disabled.');
                  return 'Disabled.';
                },
              })
            : actionForm({
                label: 'Enable this identity provider',
                submit: 'Enable identity provider',
                fields: [h('p', null, 'The login page offers it again.')],
                action: async () => {
                  await put(current({ enabled: true }));
                  rerender('Enabled.');
                  return 'Enabled.';
                },
              }),
        )
      : null,
    canWrite()
      ? section(
          'Delete',
          actionForm({
            label: 'Delete this identity provider',
            submit: 'Delete identity provider',
            danger: true,
            confirm: `Delete ${p.name}? Users keep their accounts, but their links to it are removed.`,
            fields: [],
            action: async () => {
              await api(path, { method: 'DELETE', etag });
              navigate('/console/identity-providers');
            },
          }),
        )
      : null,
  );
  return `Identity provider ${p.name}`;
}
