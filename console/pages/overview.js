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
const eventRow = (e) => h('tr', null, h('td', null, when(e.occurred_at)), h('td', null, e.subject ? link(`/console/users/${encodeURIComponent(e.subject)}`, e.subject) : '—'), h('td', null, e.client_id ?? '—'), h('td', null, String(e.details?.reason ?? '')));

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
  const stat = (/** @type {string} */ label, /** @type {string} */ value, /** @type {string} */ path) => h('li', null, link(path, h('span', { class: 'count' }, value), ' ', label));
  replace(
    main,
    h('h1', null, 'Overview'),
    h('ul', { class: 'stats', 'aria-label': 'Counts' }, stat('users', users, '/console/users'), stat('applications', clients, '/console/clients'), stat('APIs', apis, '/console/apis')),
    section('Recent sign-ins', signIns.body.data.length ? table('The last five successful sign-ins', ['When', 'User', 'Application', ''], signIns.body.data.map(eventRow)) : h('p', null, 'No sign-ins yet.')),
    section('Recent failed sign-ins', failures.body.data.length ? table('The last five failed sign-ins', ['When', 'User', 'Application', 'Reason'], failures.body.data.map(eventRow)) : h('p', null, 'No failed sign-ins.')),
    section(
      'Signing keys',
      table('Signing keys and their schedule', ['Key', 'State', 'Retires', 'Expires'], keys.body.data.filter((/** @type {any} */ k) => k.state !== 'expired').map((/** @type {any} */ k) => h('tr', null, h('td', null, h('code', null, k.kid), ' ', k.alg), h('td', null, k.state), h('td', null, when(k.retires_at)), h('td', null, when(k.expires_at))))),
      h('p', null, link('/console/keys', 'Manage signing keys')),
    ),
  );
  return 'Overview';
}
