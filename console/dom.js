// @ts-check
// Building the page from elements, never from HTML strings: every value reaches the DOM as text, so nothing
// an API answer holds (a user's name, a client's redirect URI) can become markup or script.

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * An element with attributes (`on…` functions become listeners; `true` sets a boolean attribute, `false`,
 * null and undefined leave it out) and children (nested arrays are flattened).
 * @param {string} tag
 * @param {Record<string, unknown> | null} [attributes]
 * @param {...(Child | Child[] | Child[][])} children
 * @returns {HTMLElement}
 */
export function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else if (name === 'value' && 'value' in element) /** @type {HTMLInputElement} */ (element).value = String(value);
    else if (name === 'checked' && element instanceof HTMLInputElement) element.checked = Boolean(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(2)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'number' ? String(child) : child);
  }
  return element;
}

/** Replaces the children of `parent`. @param {Element} parent @param {...(Child | Child[])} children */
export function replace(parent, ...children) {
  parent.replaceChildren();
  for (const child of children.flat())
    if (child !== null && child !== undefined && child !== false) parent.append(typeof child === 'number' ? String(child) : child);
}

/** A labelled field: the label names the input, and the hint is read with it (aria-describedby). */
let fieldCount = 0;
/**
 * @param {string} label
 * @param {Record<string, unknown>} input attributes of the input (name, type, value, required, …); `tag: 'textarea'|'select'`
 * @param {{ hint?: string, options?: string[] }} [more]
 */
export function field(label, input, more = {}) {
  const id = `f${++fieldCount}`;
  const { tag = 'input', ...attributes } = input;
  const hintId = more.hint ? `${id}-hint` : undefined;
  const control = h(
    String(tag),
    { id, ...attributes, 'aria-describedby': hintId },
    ...(more.options ?? []).map((o) => h('option', { value: o, selected: o === input.value }, o || '(any)')),
  );
  if (tag === 'textarea' && input.value !== undefined) /** @type {HTMLTextAreaElement} */ (control).value = String(input.value);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintId ? h('p', { id: hintId, class: 'hint' }, more.hint) : null);
}

/** A check box with its label after it. @param {string} label @param {Record<string, unknown>} input */
export function checkbox(label, input) {
  const id = `f${++fieldCount}`;
  return h('div', { class: 'check' }, h('input', { id, type: 'checkbox', ...input }), h('label', { for: id }, label));
}

/** A status line read out by screen readers when it changes. @param {string} [kind] */
export const statusLine = (kind = 'status') =>
  h('p', { class: 'status', role: kind === 'alert' ? 'alert' : 'status', 'aria-live': kind === 'alert' ? 'assertive' : 'polite' });

/**
 * A table with a caption (its accessible name) and a header row, in a box that scrolls sideways on a narrow
 * screen; the box is a named region that takes the focus, so a keyboard can scroll it too.
 * @param {string} caption @param {string[]} headings @param {HTMLElement[] | HTMLElement} rows an array of rows, or the tbody to fill later
 */
export function table(caption, headings, rows) {
  const body = Array.isArray(rows) ? h('tbody', null, rows) : rows;
  return h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: '0' },
    h(
      'table',
      null,
      h('caption', null, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          headings.map((x) => h('th', { scope: 'col' }, x)),
        ),
      ),
      body,
    ),
  );
}

/** A date-time as the operator's locale writes it, in a <time> element. @param {string | undefined | null} iso */
export const when = (iso) => (iso ? h('time', { datetime: iso }, new Date(iso).toLocaleString()) : '—');

/** A random value for Idempotency-Key, state and the PKCE verifier. */
export function randomId(bytes = 16) {
  const data = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...data))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The values of a form's named controls (check boxes as booleans). @param {HTMLFormElement} form */
export function formValues(form) {
  /** @type {Record<string, string | boolean>} */
  const values = {};
  for (const element of Array.from(form.elements)) {
    if (!(element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) || !element.name) continue;
    values[element.name] = element instanceof HTMLInputElement && element.type === 'checkbox' ? element.checked : element.value;
  }
  return values;
}

/** Lines of a textarea, trimmed, without empty ones. @param {string | boolean | undefined} text */
export const lines = (text) =>
  String(text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** A fresh Idempotency-Key (a bare UUID: the form the API accepts unquoted). */
export const idempotencyKey = () => crypto.randomUUID();
