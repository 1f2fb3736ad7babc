// @ts-check
// The console's entry: sign-in, the layout (header, navigation, main), and a small router over the History
// API. Each page is a module in pages/ that fills <main>; on every navigation the page's h1 takes the focus
// and the document title changes, so a screen reader announces where the operator is.
import { canWrite, finishSignIn, signedIn, signIn, signOut, steppedUp } from './auth.js';
import { h, replace } from './dom.js';
import { connect, link, showError } from './ui.js';
import { overviewPage } from './pages/overview.js';
import { usersPage, userPage } from './pages/users.js';
import { clientsPage, clientPage } from './pages/clients.js';
import { resourceServersPage, resourceServerPage } from './pages/resource-servers.js';
import { identityProvidersPage, identityProviderPage } from './pages/identity-providers.js';
import { signingKeysPage } from './pages/signing-keys.js';
import { auditPage } from './pages/audit.js';

/** @typedef {(main: HTMLElement, params: string[], query: URLSearchParams) => Promise<string>} Page */

/** @type {[RegExp, Page][]} */
const routes = [
  [/^\/console\/$/, overviewPage],
  [/^\/console\/users$/, usersPage],
  [/^\/console\/users\/([^/]+)$/, userPage],
  [/^\/console\/clients$/, clientsPage],
  [/^\/console\/clients\/([^/]+)$/, clientPage],
  [/^\/console\/apis$/, resourceServersPage],
  [/^\/console\/apis\/([^/]+)$/, resourceServerPage],
  [/^\/console\/identity-providers$/, identityProvidersPage],
  [/^\/console\/identity-providers\/([^/]+)$/, identityProviderPage],
  [/^\/console\/keys$/, signingKeysPage],
  [/^\/console\/audit$/, auditPage],
];

const NAV = [
  ['/console/', 'Overview'],
  ['/console/users', 'Users'],
  ['/console/clients', 'Applications'],
  ['/console/apis', 'APIs'],
  ['/console/identity-providers', 'Identity providers'],
  ['/console/keys', 'Signing keys'],
  ['/console/audit', 'Audit log'],
];

const app = /** @type {HTMLElement} */ (document.getElementById('app'));

function layout() {
  const access = canWrite()
    ? h('span', { class: 'badge' }, 'Can make changes')
    : h(
        'span',
        { class: 'access' },
        h('span', { class: 'badge muted-badge' }, 'Read-only'),
        steppedUp()
          ? null
          : h('button', { type: 'button', class: 'secondary small', onclick: () => signIn({ stepUp: true }) }, 'Use a second factor to make changes'),
      );
  const nav = h(
    'nav',
    { 'aria-label': 'Console' },
    h(
      'ul',
      null,
      NAV.map(([path, label]) => h('li', null, link(/** @type {string} */ (path), /** @type {string} */ (label)))),
    ),
  );
  const header = h(
    'header',
    { class: 'top' },
    h('p', { class: 'brand' }, 'Gatehouse console'),
    access,
    h('button', { type: 'button', class: 'secondary small', onclick: signOut }, 'Sign out'),
  );
  const main = h('main', { id: 'main', tabindex: '-1' });
  replace(app, header, nav, main);
  return { main, nav };
}

/** @type {{ main: HTMLElement, nav: HTMLElement } | undefined} */
let frame;

/** @param {string} [notice] what the last action did, shown above the page */
async function render(notice) {
  if (!frame) frame = layout();
  const { main, nav } = frame;
  const path = location.pathname;
  for (const a of Array.from(nav.querySelectorAll('a'))) {
    const target = a.getAttribute('href') ?? '';
    const current = target === '/console/' ? path === target : path.startsWith(target);
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const match = routes.map(([pattern, page]) => /** @type {const} */ ([path.match(pattern), page])).find(([m]) => m);
  replace(main, h('p', { role: 'status' }, 'Loading…'));
  try {
    if (!match) {
      replace(main, h('h1', null, 'Not found'), h('p', null, 'There is no console page here.'));
      document.title = 'Not found · Gatehouse console';
    } else {
      const [m, page] = match;
      const title = await page(main, (m ?? []).slice(1).map(decodeURIComponent), new URLSearchParams(location.search));
      document.title = `${title} · Gatehouse console`;
    }
  } catch (error) {
    const status = h('p');
    replace(main, h('h1', null, 'Something went wrong'), status);
    showError(status, error);
  }
  main.querySelector('h1')?.setAttribute('tabindex', '-1');
  if (notice) {
    const line = h('p', { class: 'notice', role: 'status', tabindex: '-1' }, notice);
    main.querySelector('h1')?.after(line);
    line.focus();
  } else {
    /** @type {HTMLElement | null} */ (main.querySelector('h1'))?.focus();
  }
}

/** @param {string} path */
function navigate(path) {
  history.pushState(null, '', path);
  render();
}

async function start() {
  connect(navigate, render);
  window.addEventListener('popstate', () => render());
  if (location.pathname === '/console/callback') {
    try {
      const back = await finishSignIn();
      history.replaceState(null, '', back);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      replace(
        app,
        h(
          'main',
          { id: 'main' },
          h('h1', null, 'No access to the console'),
          h('p', { role: 'alert' }, message),
          h('p', null, h('a', { href: '/console/' }, 'Start again'), ' · ', h('a', { href: '/account' }, 'Your account')),
        ),
      );
      document.title = 'No access · Gatehouse console';
      return;
    }
  }
  if (!signedIn()) {
    await signIn();
    return;
  }
  await render();
}

start();
