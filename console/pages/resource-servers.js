// @ts-check
// APIs (resource servers): list and register one (its introspection secret is shown once); one API's
// settings, its scopes with their claim mappings (which user attributes each scope releases into access
// tokens and id_tokens), and delete. Everything through /admin/v1/resource-servers: scopes and mappings are
// one PATCH of `scopes` with the If-Match of the version the page showed.
import { api, walk } from '../api.js';
import { checkbox, field, formValues, h, idempotencyKey, replace, table, when } from '../dom.js';
import { canWrite } from '../auth.js';
import { actionForm, link, navigate, rerender, secretOnce, section } from '../ui.js';

/** Attribute names from a field: separated by spaces or commas. @param {string | boolean | undefined} text */
const names = (text) =>
  String(text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);

/**
 * The scopes as a list of fieldsets (one per scope, so it reads well at 390 px and to a screen reader): name,
 * description and the attributes released into each token; "Add a scope" and "Remove" change the list.
 * Built-in APIs keep their scope names (the code checks them): the names are shown, not editable.
 * @param {any[]} scopes @param {{ fixedNames?: boolean }} [options]
 */
function scopeEditor(scopes, options = {}) {
  const list = h('div', { class: 'scope-list' });
  let count = 0;
  /** @param {any} [scope] */
  const add = (scope) => {
    const n = ++count;
    /** @type {HTMLElement} */
    const box = h(
      'fieldset',
      { class: 'scope', 'data-scope': true },
      h('legend', null, scope?.name ? `Scope ${scope.name}` : `New scope ${n}`),
      options.fixedNames
        ? h('input', { type: 'hidden', name: `scope_name_${n}`, value: scope.name })
        : field(
            'Scope name',
            { name: `scope_name_${n}`, value: scope?.name ?? '', autocomplete: 'off', spellcheck: 'false' },
            { hint: 'Letters, digits and : . _ / - (e.g. notes:read).' },
          ),
      field('Description', { name: `scope_description_${n}`, value: scope?.description ?? '' }, { hint: 'Shown to users on the consent page.' }),
      field(
        'Attributes in access tokens',
        { name: `scope_access_${n}`, value: (scope?.claims?.access_token ?? []).join(' '), autocomplete: 'off', spellcheck: 'false' },
        { hint: 'User attribute names, separated by spaces: each becomes a claim of the access token when this scope is granted.' },
      ),
      field('Attributes in ID tokens and /userinfo', {
        name: `scope_id_${n}`,
        value: (scope?.claims?.id_token ?? []).join(' '),
        autocomplete: 'off',
        spellcheck: 'false',
      }),
      options.fixedNames
        ? null
        : h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'secondary small',
                onclick: () => {
                  box.remove();
                  /** @type {HTMLElement | null} */ (list.querySelector('fieldset input:not([type=hidden])'))?.focus();
                },
              },
              `Remove ${scope?.name ? `scope ${scope.name}` : `new scope ${n}`}`,
            ),
          ),
    );
    list.append(box);
    return box;
  };
  for (const scope of scopes) add(scope);
  const more = options.fixedNames
    ? null
    : h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => {
              /** @type {HTMLElement | null} */ (add().querySelector('input'))?.focus();
            },
          },
          'Add a scope',
        ),
      );
  return h('div', null, list, more);
}

/** The scopes of the editor in `form`, as the API's document wants them (every mapping written). @param {HTMLFormElement} form */
function scopesOf(form) {
  const v = formValues(form);
  return Array.from(form.querySelectorAll('fieldset[data-scope]')).map((box) => {
    const n = /** @type {HTMLInputElement} */ (box.querySelector('input[name^="scope_name_"]')).name.slice('scope_name_'.length);
    const access = names(v[`scope_access_${n}`]);
    const id = names(v[`scope_id_${n}`]);
    return {
      name: String(v[`scope_name_${n}`]).trim(),
      description: String(v[`scope_description_${n}`]).trim(),
      claims: { ...(access.length ? { access_token: access } : {}), ...(id.length ? { id_token: id } : {}) },
    };
  });
}

const ttlField = (/** @type {number | null | undefined} */ value) =>
  field(
    'Access-token lifetime (seconds)',
    { name: 'access_token_ttl', type: 'number', min: '30', value: value ?? '' },
    { hint: 'Empty: the server-wide lifetime.' },
  );
const ttlOf = (/** @type {string | boolean | undefined} */ value) => (value === '' || value === undefined ? null : Number(value));

/** @param {HTMLElement} main */
export async function resourceServersPage(main) {
  const { items } = await walk('/resource-servers', 1000);
  const key = idempotencyKey();
  const created = h('div');
  replace(
    main,
    h('h1', null, 'APIs'),
    h('p', null, 'The resource servers tokens can be issued for (their identifier is the token audience).'),
    table(
      'Registered APIs',
      ['Name', 'Identifier', 'Scopes', 'Kind'],
      items.map((s) =>
        h(
          'tr',
          null,
          h('td', null, link(`/console/apis/${encodeURIComponent(s.identifier)}`, s.name)),
          h('td', null, h('code', null, s.identifier)),
          h('td', null, s.scopes.map((/** @type {any} */ x) => x.name).join(' ')),
          h('td', null, s.built_in ? 'Built in' : s.operator_only ? 'Operator only' : 'Registered'),
        ),
      ),
    ),
    canWrite()
      ? section(
          'Register an API',
          created,
          actionForm({
            label: 'Register an API',
            submit: 'Register API',
            fields: [
              field(
                'Identifier',
                { name: 'identifier', type: 'url', required: true, autocomplete: 'off', placeholder: 'https://api.example.com' },
                { hint: 'An absolute https URI: the audience (aud) of its tokens. It cannot change later.' },
              ),
              field('Name', { name: 'name', required: true }),
              h('fieldset', null, h('legend', null, 'Scopes'), scopeEditor([{ name: '', description: '' }])),
              ttlField(null),
              checkbox('Refresh tokens may yield tokens for it (offline access)', { name: 'offline_access', checked: true }),
            ],
            action: async (form) => {
              const v = formValues(form);
              const body = {
                identifier: String(v.identifier).trim(),
                name: v.name,
                scopes: scopesOf(form),
                access_token_ttl: ttlOf(v.access_token_ttl),
                offline_access: v.offline_access,
              };
              const s = (await api('/resource-servers', { method: 'POST', body, idempotencyKey: key })).body;
              replace(
                created,
                h(
                  'div',
                  { class: 'notice' },
                  h(
                    'p',
                    null,
                    'Registered ',
                    link(`/console/apis/${encodeURIComponent(s.identifier)}`, s.name),
                    '. Its introspection credentials (for /introspect) are client id ',
                    h('code', null, s.client_id),
                    ' and:',
                  ),
                  secretOnce('Introspection secret', s.client_secret),
                ),
              );
              /** @type {HTMLElement | null} */ (created.querySelector('a'))?.focus();
              return 'Registered.';
            },
          }),
        )
      : null,
  );
  return 'APIs';
}

/** @param {HTMLElement} main @param {string[]} params */
export async function resourceServerPage(main, [identifier = '']) {
  const path = `/resource-servers/${encodeURIComponent(identifier)}`;
  const { body: s, etag } = await api(path);
  const patch = (/** @type {Record<string, unknown>} */ body) => api(path, { method: 'PATCH', body, etag, contentType: 'application/merge-patch+json' });
  const claimsText = (/** @type {any} */ x) =>
    [
      x.claims?.access_token?.length ? `access token: ${x.claims.access_token.join(', ')}` : '',
      x.claims?.id_token?.length ? `ID token: ${x.claims.id_token.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ') || '—';
  replace(
    main,
    h('p', { class: 'crumbs' }, link('/console/apis', 'APIs'), ' / ', s.name),
    h('h1', null, `API ${s.name}`),
    h(
      'p',
      { class: 'muted' },
      'Identifier ',
      h('code', null, s.identifier),
      ' · updated ',
      when(s.updated_at),
      s.client_id ? [' · introspection client ', h('code', null, s.client_id)] : null,
    ),
    s.built_in
      ? h(
          'p',
          { class: 'notice' },
          'Built into Gatehouse: its scope names are the ones its code checks, so only descriptions, claim mappings and settings change here, and it cannot be deleted.',
        )
      : null,
    section(
      'Scopes',
      table(
        `Scopes of ${s.name}`,
        ['Scope', 'Description', 'Attributes released'],
        s.scopes.map((/** @type {any} */ x) =>
          h('tr', null, h('td', null, h('code', null, x.name)), h('td', null, x.description), h('td', null, claimsText(x))),
        ),
      ),
    ),
    canWrite()
      ? section(
          'Edit scopes and claims',
          actionForm({
            label: 'Scopes and claim mappings',
            submit: 'Save scopes',
            fields: [
              h(
                'p',
                { class: 'hint' },
                'A scope name used by clients or grants keeps working only while it exists here. Attribute names must not be reserved or standard OpenID Connect claims.',
              ),
              scopeEditor(s.scopes, { fixedNames: s.built_in }),
            ],
            action: async (form) => {
              await patch({ scopes: scopesOf(form) });
              rerender('Scopes saved.');
              return 'Scopes saved.';
            },
          }),
        )
      : null,
    canWrite()
      ? section(
          'Settings',
          actionForm({
            label: 'API settings',
            submit: 'Save settings',
            fields: [
              field('Name', { name: 'name', value: s.name }),
              ttlField(s.access_token_ttl),
              s.operator_only
                ? null
                : checkbox('Refresh tokens may yield tokens for it (offline access)', { name: 'offline_access', checked: s.offline_access }),
            ],
            action: async (form) => {
              const v = formValues(form);
              await patch({ name: v.name, access_token_ttl: ttlOf(v.access_token_ttl), ...(s.operator_only ? {} : { offline_access: v.offline_access }) });
              rerender('Saved.');
              return 'Saved.';
            },
          }),
        )
      : section('Settings', h('p', null, `Access-token lifetime: ${s.access_token_ttl ?? 'server-wide'} · offline access: ${s.offline_access ? 'yes' : 'no'}`)),
    canWrite() && !s.built_in
      ? section(
          'Delete',
          actionForm({
            label: 'Delete this API',
            submit: 'Delete API',
            danger: true,
            confirm: `Delete ${s.name}? Its scopes and introspection credentials go with it.`,
            fields: [],
            action: async () => {
              await api(path, { method: 'DELETE', etag });
              navigate('/console/apis');
            },
          }),
        )
      : null,
  );
  return `API ${s.name}`;
}
