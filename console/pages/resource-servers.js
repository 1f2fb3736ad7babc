// @ts-check
// APIs (resource servers): the registered audiences with their scopes and claim mappings; name, token
// lifetime and offline access can be changed (scope names and claims stay with the CLI and `gatehouse apply`).
import { api, walk } from '../api.js';
import { checkbox, field, formValues, h, replace, table, when } from '../dom.js';
import { canWrite } from '../auth.js';
import { actionForm, link, rerender, section } from '../ui.js';

/** @param {HTMLElement} main */
export async function resourceServersPage(main) {
  const { items } = await walk('/resource-servers', 1000);
  replace(
    main,
    h('h1', null, 'APIs'),
    h('p', null, 'The resource servers tokens can be issued for (their identifier is the token audience).'),
    table('Registered APIs', ['Name', 'Identifier', 'Scopes', 'Kind'], items.map((s) =>
      h('tr', null, h('td', null, link(`/console/apis/${encodeURIComponent(s.identifier)}`, s.name)), h('td', null, h('code', null, s.identifier)), h('td', null, s.scopes.map((/** @type {any} */ x) => x.name).join(' ')), h('td', null, s.built_in ? 'Built in' : s.operator_only ? 'Operator only' : 'Registered')))),
  );
  return 'APIs';
}

/** @param {HTMLElement} main @param {string[]} params */
export async function resourceServerPage(main, [identifier = '']) {
  const path = `/resource-servers/${encodeURIComponent(identifier)}`;
  const { body: s, etag } = await api(path);
  replace(
    main,
    h('p', { class: 'crumbs' }, link('/console/apis', 'APIs'), ' / ', s.name),
    h('h1', null, `API ${s.name}`),
    h('p', { class: 'muted' }, 'Identifier ', h('code', null, s.identifier), ' · updated ', when(s.updated_at), s.client_id ? [' · introspection client ', h('code', null, s.client_id)] : null),
    section('Scopes', table(`Scopes of ${s.name}`, ['Scope', 'Description', 'Claims'], s.scopes.map((/** @type {any} */ x) => h('tr', null, h('td', null, h('code', null, x.name)), h('td', null, x.description), h('td', null, x.claims && Object.keys(x.claims).length ? JSON.stringify(x.claims) : '—'))))),
    canWrite()
      ? section('Settings', actionForm({
          label: 'API settings',
          submit: 'Save settings',
          fields: [
            field('Name', { name: 'name', value: s.name }),
            field('Access-token lifetime (seconds)', { name: 'access_token_ttl', type: 'number', min: '30', value: s.access_token_ttl ?? '' }, { hint: 'Empty: the server-wide lifetime.' }),
            s.operator_only ? null : checkbox('Refresh tokens may yield tokens for it (offline access)', { name: 'offline_access', checked: s.offline_access }),
          ],
          action: async (form) => {
            const v = formValues(form);
            const body = { name: v.name, access_token_ttl: v.access_token_ttl === '' ? null : Number(v.access_token_ttl), ...(s.operator_only ? {} : { offline_access: v.offline_access }) };
            await api(path, { method: 'PATCH', body, etag, contentType: 'application/merge-patch+json' });
            rerender('Saved.');
            return 'Saved.';
          },
        }))
      : section('Settings', h('p', null, `Access-token lifetime: ${s.access_token_ttl ?? 'server-wide'} · offline access: ${s.offline_access ? 'yes' : 'no'}`)),
  );
  return `API ${s.name}`;
}
