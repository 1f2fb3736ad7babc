// Accept-Language for problem titles (RFC 9110 §12.5.4): English is the catalogue's language and the
// default; a few titles also exist in German. Only the human `title` changes — `code` and `type` never do.
import { problemTypes, type ProblemCode } from './problem-types.js';

const GERMAN: Partial<Record<ProblemCode, string>> = {
  'bad-request': 'Ungültige Anfrage',
  unauthorized: 'Nicht angemeldet',
  'invalid-token': 'Ungültiges Zugriffstoken',
  'insufficient-scope': 'Unzureichender Berechtigungsumfang',
  forbidden: 'Verboten',
  'not-found': 'Nicht gefunden',
  'method-not-allowed': 'Methode nicht erlaubt',
  'not-acceptable': 'Nicht annehmbar',
  conflict: 'Konflikt',
  gone: 'Nicht mehr verfügbar',
  'precondition-failed': 'Vorbedingung fehlgeschlagen',
  'unsupported-media-type': 'Nicht unterstützter Medientyp',
  VALIDATION_ERROR: 'Validierung fehlgeschlagen',
  'rate-limited': 'Zu viele Anfragen',
  'internal-error': 'Interner Serverfehler',
  'service-unavailable': 'Dienst nicht verfügbar',
};

const CATALOGUES: Record<string, Partial<Record<ProblemCode, string>>> = { de: GERMAN };

/** The language ranges of Accept-Language, best first (q=0 dropped). */
function languages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [range, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([01](\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { range: (range ?? '').trim().toLowerCase(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((l) => l.range !== '' && l.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((l) => l.range);
}

/** The title in the client's preferred available language, and that language's tag. */
export function problemTitle(code: ProblemCode, acceptLanguage: string | undefined): { title: string; language: string } {
  for (const range of languages(acceptLanguage)) {
    const primary = range.split('-')[0]!;
    if (primary === 'en' || range === '*') break;
    const title = CATALOGUES[primary]?.[code];
    if (title) return { title, language: primary };
  }
  return { title: problemTypes[code].title, language: 'en' };
}
