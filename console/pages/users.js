// @ts-check
// Users: search and create; one user's profile and attributes (PATCH with If-Match: a stale edit is 412),
// password, second factors, sessions, grants, consents and audit trail.
import { api, etagOf } from '../api.js';
import { checkbox, field, formValues, h, idempotencyKey, replace, table, when } from '../dom.js';
import { canWrite } from '../auth.js';
import { actionForm, link, navigate, rerender, section, showError } from '../ui.js';
import { AUDIT_HEADINGS, auditRow } from './audit.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** @param {any} u */
const userRow = (u) =>
  h(
    'tr',
    null,
    h('td', null, link(`/console/users/${encodeURIComponent(u.id)}`, u.username)),
    h('td', null, u.name ?? '—'),
    h('td', null, u.email ?? '—'),
    h('td', null, u.has_second_factor ? 'Yes' : 'No'),
    h('td', null, when(u.created_at)),
  );

/** @param {HTMLElement} main @param {string[]} _params @param {URLSearchParams} query */
export async function usersPage(main, _params, query) {
  const q = query.get('q') ?? '';
  const attribute = query.get('attribute') ?? '';
  const search = /** @type {HTMLFormElement} */ (
    h(
      'form',
      { role: 'search', 'aria-label': 'Search users' },
      field('Username or e-mail (beginning), or user id', { name: 'q', type: 'search', value: q }),
      field(
        'Attribute',
        { name: 'attribute', type: 'search', value: attribute, placeholder: 'team:blue' },
        { hint: 'NAME:VALUE — users whose attribute is that value (or a list holding it).' },
      ),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Search')),
    )
  );
  search.addEventListener('submit', (event) => {
    event.preventDefault();
    const v = formValues(search);
    const next = new URLSearchParams();
    if (String(v.q).trim()) next.set('q', String(v.q).trim());
    if (String(v.attribute).trim()) next.set('attribute', String(v.attribute).trim());
    navigate(next.size ? `/console/users?${next}` : '/console/users');
  });
  const tbody = h('tbody');
  const status = h('p', { role: 'status' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Show more');
  /** @param {string | null} cursor */
  const load = async (cursor) => {
    const params = new URLSearchParams({ limit: '25' });
    if (q) params.set('q', q);
    if (attribute) params.set('attribute', attribute);
    if (cursor) params.set('cursor', cursor);
    const { body } = await api(`/users?${params}`);
    tbody.append(...body.data.map(userRow));
    more.hidden = !body.pagination.has_more;
    more.onclick = () => load(body.pagination.next_cursor).catch((error) => showError(status, error));
    const shown = tbody.children.length;
    status.textContent = shown ? `${shown} ${shown === 1 ? 'user' : 'users'} shown.` : 'No users match.';
  };
  if (UUID.test(q) && !attribute) {
    // An id is not a prefix of a username or address: look it up directly.
    try {
      tbody.append(userRow((await api(`/users/${encodeURIComponent(q)}`)).body));
    } catch {
      /* not a user id after all: the prefix search below still runs */
    }
  }
  try {
    await load(null);
  } catch (error) {
    // A malformed search (the API's 400 names the parameter) is said beside the form, not as a broken page.
    showError(status, error);
  }
  const key = idempotencyKey();
  replace(
    main,
    h('h1', null, 'Users'),
    search,
    table(
      q || attribute ? `Users matching “${[q, attribute].filter(Boolean).join('” and “')}”` : 'Users, oldest first',
      ['Username', 'Name', 'E-mail', 'Second factor', 'Created'],
      tbody,
    ),
    status,
    more,
    canWrite()
      ? section(
          'Create a user',
          actionForm({
            label: 'Create a user',
            submit: 'Create user',
            fields: [
              field('Username', { name: 'username', required: true, autocomplete: 'off' }),
              field(
                'Password',
                { name: 'password', type: 'password', required: true, autocomplete: 'new-password' },
                { hint: 'At least 8 characters. Tell the user through a safe channel.' },
              ),
              field('Name', { name: 'name' }),
              field('E-mail', { name: 'email', type: 'email' }),
            ],
            action: async (form) => {
              const v = formValues(form);
              const body = { username: v.username, password: v.password, ...(v.name ? { name: v.name } : {}), ...(v.email ? { email: v.email } : {}) };
              const created = await api('/users', { method: 'POST', body, idempotencyKey: key });
              navigate(`/console/users/${encodeURIComponent(created.body.id)}`);
            },
          }),
        )
      : null,
  );
  return 'Users';
}

/** A list of a user's sessions, grants or consents, each with its end button. @param {string} title @param {string} path @param {string[]} headings @param {(item: any) => (Node | string)[]} cells @param {string} endLabel */
async function accessList(title, path, headings, cells, endLabel) {
  const { body } = await api(`/${path}?user_id=${encodeURIComponent(currentUser)}&limit=100`);
  if (body.data.length === 0) return section(title, h('p', null, `None.`));
  const status = h('p', { role: 'status' });
  const rows = body.data.map((/** @type {any} */ item) => {
    const end = canWrite()
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            'aria-label': `${endLabel} ${item.id}`,
            onclick: async (/** @type {Event} */ event) => {
              const button = /** @type {HTMLButtonElement} */ (event.currentTarget);
              button.disabled = true;
              try {
                const item_path = `/${path}/${encodeURIComponent(item.id)}`;
                await api(item_path, { method: 'DELETE', etag: await etagOf(item_path) });
                rerender('Ended.');
              } catch (error) {
                showError(status, error);
                button.disabled = false;
              }
            },
          },
          endLabel,
        )
      : null;
    return h(
      'tr',
      null,
      cells(item).map((c) => h('td', null, c)),
      canWrite() ? h('td', null, end) : null,
    );
  });
  return section(title, table(title, canWrite() ? [...headings, ''] : headings, rows), status);
}

/**
 * The user's links to identity providers ("Continue with …"), each with an Unlink button: DELETE with the
 * link's ETag; the API refuses (409, said in words) to remove the user's last way to sign in.
 * @param {string} id @param {string} username
 */
async function identitiesSection(id, username) {
  const path = `/users/${encodeURIComponent(id)}/identities`;
  const { body } = await api(path);
  if (body.data.length === 0) return section('Sign-in providers', h('p', null, 'Not linked to any identity provider.'));
  const status = h('p', { role: 'status' });
  const rows = body.data.map((/** @type {any} */ link) => {
    const name = link.provider?.name ?? 'a deleted provider';
    const unlink = canWrite()
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            'aria-label': `Unlink ${name}`,
            onclick: async (/** @type {Event} */ event) => {
              const button = /** @type {HTMLButtonElement} */ (event.currentTarget);
              if (!window.confirm(`Unlink ${name} from ${username}? They can no longer sign in with it.`)) return;
              button.disabled = true;
              try {
                const item = `${path}/${encodeURIComponent(link.id)}`;
                await api(item, { method: 'DELETE', etag: await etagOf(item) });
                rerender('Unlinked.');
              } catch (error) {
                showError(status, error);
                button.disabled = false;
              }
            },
          },
          'Unlink',
        )
      : null;
    return h(
      'tr',
      null,
      h('td', null, name),
      h('td', null, h('code', null, link.subject)),
      h('td', null, link.email ?? '—'),
      h('td', null, when(link.created_at)),
      h('td', null, when(link.last_used_at)),
      canWrite() ? h('td', null, unlink) : null,
    );
  });
  const headings = ['Provider', 'Subject there', 'E-mail there', 'Linked', 'Last used'];
  return section('Sign-in providers', table(`Identity providers ${username} signs in with`, canWrite() ? [...headings, ''] : headings, rows), status);
}

let currentUser = '';

/** @param {HTMLElement} main @param {string[]} params */
export async function userPage(main, [id = '']) {
  currentUser = id;
  const { body: user, etag } = await api(`/users/${encodeURIComponent(id)}`);
  const writable = canWrite();
  const profile = writable
    ? actionForm({
        label: 'Profile',
        submit: 'Save profile',
        fields: [
          field('Username', { name: 'username', value: user.username, required: true }),
          field('Name', { name: 'name', value: user.name ?? '' }),
          field('Given name', { name: 'given_name', value: user.given_name ?? '' }),
          field('Family name', { name: 'family_name', value: user.family_name ?? '' }),
          field('E-mail', { name: 'email', type: 'email', value: user.email ?? '' }),
          checkbox('E-mail address verified', { name: 'email_verified', checked: user.email_verified }),
          field('Phone number', { name: 'phone_number', value: user.phone_number ?? '' }),
        ],
        action: async (form) => {
          const v = formValues(form);
          const text = (/** @type {string} */ name) => (v[name] === '' ? null : v[name]);
          const patch = {
            username: v.username,
            name: text('name'),
            given_name: text('given_name'),
            family_name: text('family_name'),
            email: text('email'),
            phone_number: text('phone_number'),
            email_verified: v.email_verified,
          };
          await api(`/users/${encodeURIComponent(id)}`, { method: 'PATCH', body: patch, etag, contentType: 'application/merge-patch+json' });
          rerender('Profile saved.');
          return 'Profile saved.';
        },
      })
    : h(
        'dl',
        null,
        ['username', 'name', 'given_name', 'family_name', 'email', 'phone_number'].map((k) => [
          h('dt', null, k.replace('_', ' ')),
          h('dd', null, user[k] ?? '—'),
        ]),
      );
  const attributes = writable
    ? actionForm({
        label: 'Attributes',
        submit: 'Save attributes',
        fields: [
          field(
            'Attributes (JSON object)',
            { tag: 'textarea', name: 'attributes', rows: 6, value: JSON.stringify(user.attributes, null, 2), spellcheck: 'false' },
            { hint: 'Name → value. Registered scopes map them into tokens. Remove a line to delete the attribute.' },
          ),
        ],
        action: async (form) => {
          let next;
          try {
            next = JSON.parse(String(formValues(form).attributes) || '{}');
          } catch {
            throw new Error('The attributes are not valid JSON.');
          }
          if (!next || typeof next !== 'object' || Array.isArray(next)) throw new Error('The attributes must be a JSON object.');
          /** @type {Record<string, unknown>} */
          const patch = { ...next };
          for (const name of Object.keys(user.attributes)) if (!(name in next)) patch[name] = null;
          await api(`/users/${encodeURIComponent(id)}`, { method: 'PATCH', body: { attributes: patch }, etag, contentType: 'application/merge-patch+json' });
          rerender('Attributes saved.');
          return 'Attributes saved.';
        },
      })
    : h('pre', null, JSON.stringify(user.attributes, null, 2));
  const [identities, sessions, grants, consents, trail] = await Promise.all([
    identitiesSection(id, user.username),
    accessList(
      'Sessions',
      'sessions',
      ['Device', 'Signed in', 'Expires'],
      (s) => [`${s.user_agent ?? 'Unknown browser'}${s.ip_address ? ` (${s.ip_address})` : ''}`, when(s.signed_in_at ?? s.created_at), when(s.expires_at)],
      'End session',
    ),
    accessList('Grants', 'grants', ['Application', 'Scope', 'Created'], (g) => [g.client_id, g.scope ?? '', when(g.created_at)], 'Revoke grant'),
    accessList('Consents', 'consents', ['Application', 'Scope', 'Given'], (c) => [c.client_id, c.scope, when(c.granted_at)], 'Revoke consent'),
    api(`/audit-events?subject=${encodeURIComponent(id)}&limit=20`),
  ]);
  replace(
    main,
    h('p', { class: 'crumbs' }, link('/console/users', 'Users'), ' / ', user.username),
    h('h1', null, `User ${user.username}`),
    h(
      'p',
      { class: 'muted' },
      'Id ',
      h('code', null, user.id),
      ` · created `,
      when(user.created_at),
      ` · second factor: ${user.second_factors.length ? user.second_factors.join(', ') : 'none'}`,
    ),
    section('Profile', profile),
    section('Attributes', attributes),
    writable
      ? section(
          'Password and second factors',
          actionForm({
            label: 'Set a new password',
            submit: 'Set password',
            fields: [
              field(
                'New password',
                { name: 'password', type: 'password', autocomplete: 'new-password' },
                { hint: 'Ends every session and refresh token of the user.' },
              ),
            ],
            action: async (form) => {
              await api(`/users/${encodeURIComponent(id)}/password`, { method: 'POST', body: { password: formValues(form).password } });
              form.reset();
              rerender('Password set.');
              return 'Password set.';
            },
          }),
          user.has_second_factor
            ? actionForm({
                label: 'Reset second factors',
                submit: 'Reset second factors',
                danger: true,
                confirm: `Remove every second factor of ${user.username} and end their sessions?`,
                fields: [],
                action: async () => {
                  await api(`/users/${encodeURIComponent(id)}/second-factors`, { method: 'DELETE' });
                  rerender('Second factors removed.');
                  return 'Second factors removed.';
                },
              })
            : h('p', null, 'No second factor is set up.'),
        )
      : null,
    identities,
    sessions,
    grants,
    consents,
    section(
      'Audit trail',
      trail.body.data.length ? table(`The latest events about ${user.username}`, AUDIT_HEADINGS, trail.body.data.map(auditRow)) : h('p', null, 'No events.'),
      h('p', null, link(`/console/audit?subject=${encodeURIComponent(id)}`, 'All events about this user')),
    ),
    writable
      ? section(
          'Delete',
          actionForm({
            label: 'Delete this user',
            submit: 'Delete user',
            danger: true,
            confirm: `Delete ${user.username}? Their grants are revoked.`,
            fields: [],
            action: async () => {
              await api(`/users/${encodeURIComponent(id)}`, { method: 'DELETE', etag });
              navigate('/console/users');
            },
          }),
        )
      : null,
  );
  return `User ${user.username}`;
}
