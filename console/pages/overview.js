// @ts-check
// Overview: how many users, applications and APIs there are, the latest sign-ins and failures from the audit
// log, and the signing keys with their next dates.
import { api, walk } from '../api.js';
import { h, replace, table, when } from '../dom.js';
import { link, section } from '../ui.js';

const COUNT_UP_TO = 1000;

/** @param {string} path */
async function count(path) {
  const { items, more } = await walk(path, COUNT_UP_TO);
  return more ? `${items.length}+` : String(items.length);
}

/** @param {any} e */
const eventRow = (e) =>
  h(
    'tr',
    null,
    h('td', null, when(e.occurred_at)),
    h('td', null, e.subject ? link(`/console/users/${encodeURIComponent(e.subject)}`, e.subject) : '—'),
    h('td', null, e.client_id ?? '—'),
    h('td', null, String(e.details?.reason ?? '')),
  );

/**
 * What the key schedule does next (a pending key starts signing, an old one stops or leaves the JWKS),
 * soonest first; with nothing scheduled, how long the active keys have signed (a rotation is the operator's call).
 * @param {any[]} keys @param {number} now
 */
function keysDue(keys, now) {
  /** @type {[string, string, string][]} */
  const due = [];
  for (const k of keys) {
    if (k.state === 'pending') due.push([k.activates_at, `${k.kid} (${k.alg}) starts signing`, k.kid]);
    if (k.retires_at && Date.parse(k.retires_at) > now) due.push([k.retires_at, `${k.kid} (${k.alg}) stops signing`, k.kid]);
    if (k.expires_at && Date.parse(k.expires_at) > now) due.push([k.expires_at, `${k.kid} (${k.alg}) leaves the published keys`, k.kid]);
  }
  due.sort((a, b) => a[0].localeCompare(b[0]));
  if (due.length)
    return h(
      'ul',
      { 'aria-label': 'Key changes due' },
      due.map(([at, what]) => h('li', null, when(at), ': ', what)),
    );
  const active = keys.filter((k) => k.state === 'active');
  return h(
    'p',
    null,
    'Nothing is scheduled: the active keys sign until the next rotation. ',
    active.map((k) => [
      `${k.alg} key active since `,
      when(k.activates_at),
      ` (${Math.max(0, Math.floor((now - Date.parse(k.activates_at)) / 86_400_000))} days). `,
    ]),
  );
}

/** @param {HTMLElement} main */
export async function overviewPage(main) {
  const [users, clients, apis, signIns, failures, keys] = await Promise.all([
    count('/users'),
    count('/clients'),
    count('/resource-servers'),
    api('/audit-events?type=login.succeeded&limit=5'),
    api('/audit-events?type=login.failed&limit=5'),
    api('/signing-keys?limit=100'),
  ]);
  const stat = (/** @type {string} */ label, /** @type {string} */ value, /** @type {string} */ path) =>
    h('li', null, link(path, h('span', { class: 'count' }, value), ' ', label));
  replace(
    main,
    h('h1', null, 'Overview'),
    h(
      'ul',
      { class: 'stats', 'aria-label': 'Counts' },
      stat('users', users, '/console/users'),
      stat('applications', clients, '/console/clients'),
      stat('APIs', apis, '/console/apis'),
    ),
    section(
      'Recent sign-ins',
      signIns.body.data.length
        ? table('The last five successful sign-ins', ['When', 'User', 'Application', ''], signIns.body.data.map(eventRow))
        : h('p', null, 'No sign-ins yet.'),
    ),
    section(
      'Recent failed sign-ins',
      failures.body.data.length
        ? table('The last five failed sign-ins', ['When', 'User', 'Application', 'Reason'], failures.body.data.map(eventRow))
        : h('p', null, 'No failed sign-ins.'),
    ),
    section(
      'Signing keys',
      h('h3', null, 'Due next'),
      keysDue(keys.body.data, Date.now()),
      table(
        'Signing keys and their schedule',
        ['Key', 'State', 'Retires', 'Expires'],
        keys.body.data
          .filter((/** @type {any} */ k) => k.state !== 'expired')
          .map((/** @type {any} */ k) =>
            h(
              'tr',
              null,
              h('td', null, h('code', null, k.kid), ' ', k.alg),
              h('td', null, k.state),
              h('td', null, when(k.retires_at)),
              h('td', null, when(k.expires_at)),
            ),
          ),
      ),
      h('p', null, link('/console/keys', 'Manage signing keys')),
    ),
  );
  return 'Overview';
}
