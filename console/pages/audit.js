// @ts-check
// The audit log, newest first, filtered by type, subject, client (or the admin client that acted), actor and
// time, with the filter in the address so a filtered view can be shared; "Show older" follows the cursor.
// New events are followed: every few seconds the page asks for events since the newest it shows (same
// filter), adds the unseen ones at the top and says how many in a polite live region; a button pauses it.
import { api } from '../api.js';
import { field, formValues, h, replace, table, when } from '../dom.js';
import { link, navigate, section, showError } from '../ui.js';

// The filter's choices: the server's audit event types (src/audit/audit-events.ts), kept equal by
// test/console/event-types.test.ts — this file runs in the browser and cannot import the server's list.
export const EVENT_TYPES = [
  '',
  'admin.client.created',
  'admin.client.updated',
  'admin.client.deleted',
  'admin.user.created',
  'admin.user.updated',
  'admin.user.deleted',
  'admin.user.password_set',
  'admin.user.second_factors_reset',
  'admin.user.attribute_set',
  'admin.user.attribute_deleted',
  'admin.user.operator_granted',
  'admin.user.operator_revoked',
  'admin.user.invited',
  'admin.user.invitation_revoked',
  'admin.grant.revoked',
  'admin.session.ended',
  'admin.resource_server.created',
  'admin.resource_server.updated',
  'admin.resource_server.deleted',
  'admin.identity_provider.created',
  'admin.identity_provider.updated',
  'admin.identity_provider.deleted',
  'admin.user.identity_unlinked',
  'admin.webhook.created',
  'admin.webhook.updated',
  'admin.webhook.deleted',
  'admin.webhook.secret_rotated',
  'admin.webhook.redelivered',
  'login.succeeded',
  'login.failed',
  'login.locked_out',
  'user.invitation_accepted',
  'user.password_reset_requested',
  'user.password_reset',
  'user.signed_up',
  'account.email_change_requested',
  'account.email_changed',
  'account.password_changed',
  'account.second_factor_added',
  'account.second_factor_removed',
  'account.recovery_codes_regenerated',
  'account.identity_linked',
  'account.identity_unlinked',
  'account.provisioned',
  'consent.given',
  'consent.revoked',
  'token.exchanged',
  'delegation.revoked',
  'refresh_token.reused',
  'authorization_code.reused',
  'signing_key.rotated',
  'client.secret_rotated',
  'session.ended',
  'client.registered',
  'client.self_registered',
  'client.registration_updated',
  'client.registration_deleted',
  'client.metadata_document_created',
  'client.metadata_document_updated',
  'audit.checkpoint',
];

/** @param {any} actor */
export const actorText = (actor) =>
  actor.kind === 'cli'
    ? `CLI (${actor.user})`
    : actor.kind === 'admin-client'
      ? `${actor.client_id}${actor.user_id ? ` for ${actor.user_id}` : ''}`
      : actor.kind === 'user'
        ? `user ${actor.user_id}`
        : actor.kind;

/** @param {any} e */
export const auditRow = (e) =>
  h(
    'tr',
    { 'data-id': e.id, 'data-at': e.occurred_at },
    h('td', null, when(e.occurred_at)),
    h('td', null, h('code', null, e.type)),
    h('td', null, actorText(e.actor)),
    h('td', null, e.subject ? link(`/console/users/${encodeURIComponent(e.subject)}`, e.subject) : '—'),
    h('td', null, e.client_id ?? '—'),
    h('td', null, (e.changed_fields ?? []).join(', ')),
  );

export const AUDIT_HEADINGS = ['When', 'Type', 'Actor', 'Subject', 'Client', 'Changed'];

/** datetime-local (the operator's time zone) → RFC 3339. @param {string | boolean | undefined} value */
const rfc3339 = (value) => (typeof value === 'string' && value ? new Date(value).toISOString() : '');

/** @param {HTMLElement} main @param {string[]} _params @param {URLSearchParams} query */
export async function auditPage(main, _params, query) {
  const filter = new URLSearchParams();
  for (const name of ['type', 'subject', 'client_id', 'actor', 'since', 'until'])
    if (query.get(name)) filter.set(name, /** @type {string} */ (query.get(name)));
  const local = (/** @type {string | null} */ iso) =>
    iso ? new Date(new Date(iso).getTime() - new Date(iso).getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '';
  const form = /** @type {HTMLFormElement} */ (
    h(
      'form',
      { class: 'filters', 'aria-label': 'Filter the audit log' },
      field('Type', { tag: 'select', name: 'type', value: query.get('type') ?? '' }, { options: EVENT_TYPES }),
      field('Subject (user or resource id)', { name: 'subject', value: query.get('subject') ?? '' }),
      field('Client (or the admin client that acted)', { name: 'client_id', value: query.get('client_id') ?? '' }),
      field(
        'Actor (user id, or the CLI user)',
        { name: 'actor', value: query.get('actor') ?? '' },
        { hint: 'Who made the change: a user, an operator through the console, or the person at the CLI.' },
      ),
      field('From', { name: 'since', type: 'datetime-local', value: local(query.get('since')) }),
      field('Until', { name: 'until', type: 'datetime-local', value: local(query.get('until')) }),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filter')),
    )
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const v = formValues(form);
    const next = new URLSearchParams();
    for (const name of ['type', 'subject', 'client_id', 'actor']) if (v[name]) next.set(name, String(v[name]));
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
    const shown = tbody.children.length;
    status.textContent = shown ? `${shown} ${shown === 1 ? 'event' : 'events'} shown.` : 'No events match.';
    more.hidden = !body.pagination.has_more;
    more.onclick = () => load(body.pagination.next_cursor).catch((error) => showError(status, error));
  };
  await load(null);
  replace(
    main,
    h('h1', null, 'Audit log'),
    form,
    filter.has('until') ? null : follower(filter, tbody),
    section('Events', table('Audit events, newest first', AUDIT_HEADINGS, tbody), status, more),
  );
  return 'Audit log';
}

/** How often the page asks for new events while following. */
const FOLLOW_MS = 5000;

/**
 * Follows new events matching `filter` into the top of `tbody`. The cursor is the newest event shown: the
 * page asks for `since` its time (inclusive, so an event in the same millisecond is not missed) and skips
 * ids it already shows. Stops by itself once the page is gone.
 * @param {URLSearchParams} filter @param {HTMLElement} tbody
 */
function follower(filter, tbody) {
  const seen = new Set(Array.from(tbody.querySelectorAll('tr')).map((tr) => tr.dataset.id));
  // Nothing shown yet: everything matching the filter is new (no browser clock involved).
  let newest = /** @type {HTMLElement | null} */ (tbody.firstElementChild)?.dataset.at ?? filter.get('since') ?? '1970-01-01T00:00:00.000Z';
  let paused = false;
  const live = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, 'Following new events.');
  const button = h('button', { type: 'button', class: 'secondary small', 'aria-pressed': 'false' }, 'Pause following');
  button.addEventListener('click', () => {
    paused = !paused;
    button.setAttribute('aria-pressed', String(paused));
    button.textContent = paused ? 'Resume following' : 'Pause following';
    live.textContent = paused ? 'Following paused.' : 'Following new events.';
  });
  const tick = async () => {
    if (!tbody.isConnected) return;
    if (!paused) {
      try {
        const params = new URLSearchParams(filter);
        params.set('since', newest);
        params.set('limit', '100');
        const { body } = await api(`/audit-events?${params}`);
        const fresh = body.data.filter((/** @type {any} */ e) => !seen.has(e.id));
        if (fresh.length) {
          for (const e of fresh) seen.add(e.id);
          // biome-ignore lint/complexity/useMathMinMax: ISO 8601 timestamps (strings) compare in time order as text; Math.max would make NaN
          newest = fresh[0].occurred_at > newest ? fresh[0].occurred_at : newest;
          tbody.prepend(...fresh.map(auditRow));
          live.textContent = fresh.length === 1 ? '1 new event.' : `${fresh.length} new events.`;
        }
      } catch (error) {
        showError(live, error);
      }
    }
    if (tbody.isConnected) setTimeout(tick, FOLLOW_MS);
  };
  setTimeout(tick, FOLLOW_MS);
  return h('div', { class: 'follow' }, live, button);
}
