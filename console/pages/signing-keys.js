// @ts-check
// Signing keys: the schedule of every key, and a rotation (POST /signing-keys/rotations, one Idempotency-Key
// per form so a double click rotates once).
import { api } from '../api.js';
import { h, idempotencyKey, replace, table, when } from '../dom.js';
import { canWrite } from '../auth.js';
import { actionForm, rerender, section } from '../ui.js';

/** @param {HTMLElement} main */
export async function signingKeysPage(main) {
  const { body } = await api('/signing-keys?limit=100');
  const key = idempotencyKey();
  replace(
    main,
    h('h1', null, 'Signing keys'),
    h(
      'p',
      null,
      'Tokens are signed with the active key of each algorithm. A rotation publishes a new key now and makes it active after the publication delay; the old key retires then and expires later (docs/key-rotation.md).',
    ),
    table(
      'Every signing key, oldest first',
      ['Key id', 'Algorithm', 'State', 'Published', 'Active from', 'Retires', 'Expires'],
      body.data.map((/** @type {any} */ k) =>
        h(
          'tr',
          null,
          h('td', null, h('code', null, k.kid)),
          h('td', null, k.alg),
          h('td', null, k.state),
          h('td', null, when(k.published_at)),
          h('td', null, when(k.activates_at)),
          h('td', null, when(k.retires_at)),
          h('td', null, when(k.expires_at)),
        ),
      ),
    ),
    canWrite()
      ? section(
          'Rotate',
          actionForm({
            label: 'Rotate the signing keys',
            submit: 'Rotate both keys now',
            confirm: 'Rotate the signing keys now?',
            action: async () => {
              await api('/signing-keys/rotations', { method: 'POST', body: {}, idempotencyKey: key });
              rerender('Rotated.');
              return 'Rotated.';
            },
          }),
        )
      : null,
  );
  return 'Signing keys';
}
