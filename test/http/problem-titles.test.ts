import { test } from 'node:test';
import assert from 'node:assert/strict';
import { problemTitle } from '../../src/http/problem-titles.js';
import { problemTypes } from '../../src/http/problem-types.js';

test('English is the default title language, with or without Accept-Language', () => {
  for (const header of [undefined, '', 'en', 'fr-CH, fr;q=0.9', '*', 'de;q=0']) {
    assert.deepEqual(problemTitle('not-found', header), { title: problemTypes['not-found'].title, language: 'en' });
  }
});

test('a German preference gets the German title; q-values and order are honoured', () => {
  assert.deepEqual(problemTitle('not-found', 'de-CH'), { title: 'Nicht gefunden', language: 'de' });
  assert.equal(problemTitle('not-found', 'en;q=0.5, de;q=0.8').language, 'de');
  assert.equal(problemTitle('not-found', 'en, de').language, 'en');
});

test('a code without a German title falls back to English', () => {
  assert.equal(problemTitle('invalid-cursor', 'de').title, problemTypes['invalid-cursor'].title);
});

test('API problems honour Accept-Language for the title only: code and type stay the same', async () => {
  const { startTestApp } = await import('../helpers/app.js');
  const t = await startTestApp();
  try {
    const [de, en] = await Promise.all(['de-DE, en;q=0.5', 'en-GB'].map((lang) => fetch(`${t.url}/v1/users/me`, { headers: { 'accept-language': lang } })));
    const [deBody, enBody] = (await Promise.all([de!.json(), en!.json()])) as { title: string; code: string; type: string }[];
    assert.equal(deBody!.title, 'Nicht angemeldet');
    assert.equal(de!.headers.get('content-language'), 'de');
    assert.equal(enBody!.title, problemTypes.unauthorized.title);
    assert.equal(en!.headers.get('content-language'), 'en');
    assert.equal(deBody!.code, enBody!.code);
    assert.equal(deBody!.type, enBody!.type);
  } finally {
    await t.close();
  }
});
