// @ts-check
// The audit log, newest first, filtered by type, subject, client (or the admin client that acted) and time,
// with the filter in the address so a filtered view can be shared; "Show older" follows the cursor.
import { api } from '../api.js';
import { field, formValues, h, replace, table, when } from '../dom.js';
import { link, navigate, section, showError } from '../ui.js';

export const EVENT_TYPES = [
  '', 'login.succeeded', 'login.failed', 'login.locked_out', 'consent.given', 'consent.revoked', 'refresh_token.reused', 'authorization_code.reused', 'signing_key.rotated', 'client.secret_rotated',
  'admin.client.created', 'admin.client.updated', 'admin.client.deleted', 'admin.user.created', 'admin.user.updated', 'admin.user.deleted', 'admin.user.password_set', 'admin.user.second_factors_reset',
  'admin.user.attribute_set', 'admin.user.attribute_deleted', 'admin.user.operator_granted', 'admin.user.operator_revoked', 'admin.grant.revoked', 'admin.session.ended',
  'admin.resource_server.created', 'admin.resource_server.updated', 'admin.resource_server.deleted',
];

/** @param {any} actor */
export const actorText = (actor) => (actor.kind === 'cli' ? `CLI (${actor.user})` : actor.kind === 'admin-client' ? `${actor.client_id}${actor.user_id ? ` for ${actor.user_id}` : ''}` : actor.kind === 'user' ? `user ${actor.user_id}` : actor.kind);

/** @param {any} e */
export const auditRow = (e) =>
  h('tr', null, h('td', null, when(e.occurred_at)), h('td', null, h('code', null, e.type)), h('td', null, actorText(e.actor)), h('td', null, e.subject ? link(`/console/users/${encodeURIComponent(e.subject)}`, e.subject) : '—'), h('td', null, e.client_id ?? '—'), h('td', null, (e.changed_fields ?? []).join(', ')));

export const AUDIT_HEADINGS = ['When', 'Type', 'Actor', 'Subject', 'Client', 'Changed'];

/** datetime-local (the operator's time zone) → RFC 3339. @param {string | boolean | undefined} value */
const rfc3339 = (value) => (typeof value === 'string' && value ? new Date(value).toISOString() : '');

/** @param {HTMLElement} main @param {string[]} _params @param {URLSearchParams} query */
export async function auditPage(main, _params, query) {
  const filter = new URLSearchParams();
  for (const name of ['type', 'subject', 'client_id', 'since', 'until']) if (query.get(name)) filter.set(name, /** @type {string} */ (query.get(name)));
  const local = (/** @type {string | null} */ iso) => (iso ? new Date(new Date(iso).getTime() - new Date(iso).getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '');
  const form = /** @type {HTMLFormElement} */ (h('form', { class: 'filters', 'aria-label': 'Filter the audit log' },
    field('Type', { tag: 'select', name: 'type', value: query.get('type') ?? '' }, { options: EVENT_TYPES }),
    field('Subject (user or resource id)', { name: 'subject', value: query.get('subject') ?? '' }),
    field('Client (or the admin client that acted)', { name: 'client_id', value: query.get('client_id') ?? '' }),
    field('From', { name: 'since', type: 'datetime-local', value: local(query.get('since')) }),
    field('Until', { name: 'until', type: 'datetime-local', value: local(query.get('until')) }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filter'))));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const v = formValues(form);
    const next = new URLSearchParams();
    for (const name of ['type', 'subject', 'client_id']) if (v[name]) next.set(name, String(v[name]));
    if (rfc3339(v.since)) next.set('since', rfc3339(v.since));
    if (rfc3339(v.until)) next.set('until', rfc3339(v.until));
    navigate(`/console/audit${next.size ? `?${next}` : ''}`);
  });
  const status = h('p', { role: 'status' });
  const tbody = h('tbody');
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Show older events');
  /** @param {string | null} cursor */
  const load = async (cursor) => {
    const params = new URLSearchParams(filter);
    params.set('limit', '25');
    if (cursor) params.set('cursor', cursor);
    const { body } = await api(`/audit-events?${params}`);
    tbody.append(...body.data.map(auditRow));
    status.textContent = tbody.children.length ? `${tbody.children.length} events shown.` : 'No events match.';
    more.hidden = !body.pagination.has_more;
    more.onclick = () => load(body.pagination.next_cursor).catch((error) => showError(status, error));
  };
  await load(null);
  replace(main, h('h1', null, 'Audit log'), form, section('Events', table('Audit events, newest first', AUDIT_HEADINGS, tbody), status, more));
  return 'Audit log';
}
