// @ts-check
// The few pieces every console page shares: forms that say what happened (and offer a reload when the API
// answers 412), links that move within the console, and the page heading that takes the focus.
import { ApiError } from './api.js';
import { h, statusLine } from './dom.js';

/** @type {(path: string) => void} */
let go = () => {};
/** @type {(notice?: string) => void} */
let again = () => {};
/** The router gives these to the pages (app.js). @param {(path: string) => void} navigate @param {(notice?: string) => void} rerender */
export function connect(navigate, rerender) {
  go = navigate;
  again = rerender;
}
export const navigate = (/** @type {string} */ path) => go(path);
/** Draws the page again from the API; `notice` (what just happened) is shown at its top and takes the focus. @param {string} [notice] */
export const rerender = (notice) => again(notice);

/** A link inside the console (no page load). @param {string} path @param {...(string | Node)} children */
export const link = (path, ...children) =>
  h(
    'a',
    {
      href: path,
      onclick: (/** @type {MouseEvent} */ event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        go(path);
      },
    },
    ...children,
  );

/** The failure as the operator reads it, with a reload when someone else changed the thing first. @param {HTMLElement} status @param {unknown} error */
export function showError(status, error) {
  status.setAttribute('role', 'alert');
  status.className = 'status error';
  const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  status.replaceChildren(message);
  if (error instanceof ApiError && error.status === 412) {
    status.append(' ', h('button', { type: 'button', class: 'secondary small', onclick: () => again() }, 'Reload'));
  }
}

/**
 * A form whose submit runs `action` once at a time (the button is disabled at once, so a double click sends
 * one request; creates also send one Idempotency-Key per form), then says what happened.
 * @param {{ label: string, submit: string, fields?: (Node | null)[], action: (form: HTMLFormElement) => Promise<string | void>, danger?: boolean, confirm?: string }} spec
 */
export function actionForm(spec) {
  const status = statusLine();
  const button = h('button', { type: 'submit', class: spec.danger ? 'danger' : undefined }, spec.submit);
  const form = /** @type {HTMLFormElement} */ (
    h('form', { 'aria-label': spec.label, novalidate: true }, spec.fields ?? [], h('div', { class: 'actions' }, button), status)
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (/** @type {HTMLButtonElement} */ (button).disabled) return;
    if (spec.confirm && !window.confirm(spec.confirm)) return;
    /** @type {HTMLButtonElement} */ (button).disabled = true;
    status.setAttribute('role', 'status');
    status.className = 'status';
    status.replaceChildren('Working…');
    try {
      const done = await spec.action(form);
      status.replaceChildren(done ?? 'Done.');
    } catch (error) {
      showError(status, error);
    } finally {
      /** @type {HTMLButtonElement} */ (button).disabled = false;
    }
  });
  return form;
}

/** A section with a heading (h2) that names it for screen readers. @param {string} title @param {...(Node | null | false)} children */
export function section(title, ...children) {
  const id = `s-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

/** A secret shown once, with the words that say so. @param {string} label @param {string} value */
export const secretOnce = (label, value) =>
  h(
    'div',
    { class: 'notice secret', role: 'status' },
    h('p', null, h('strong', null, `${label}: `), h('code', { 'data-secret': true }, value)),
    h('p', null, 'Copy it now: it is shown only once and cannot be read again (rotate it if it is lost).'),
  );
