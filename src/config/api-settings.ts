// Settings of the resource API /v1: accepted currencies and deprecated versions (docs/api-conventions.md).
import { list, currencies, type Setting } from './setting.js';

export const resourceApiSettings = {
  CURRENCIES: {
    doc: 'ISO 4217 currencies accepted by payments and orders.',
    expects: 'a comma-separated list of upper-case ISO 4217 codes',
    parse: currencies,
    fallback: ['EUR', 'USD', 'GBP', 'CHF', 'JPY'],
    docDefault: 'EUR,USD,GBP,CHF,JPY',
  },
  API_DEPRECATED_VERSIONS: {
    doc: 'Deprecated API versions as `version@deprecation-date@sunset-date` items separated by commas (dates ISO 8601).',
    expects: 'comma-separated `v<N>@<ISO date>[@<ISO date>]` items',
    parse: (raw: string) => {
      const out: { version: string; deprecatedAt: Date; sunsetAt?: Date }[] = [];
      for (const item of list(raw)) {
        const [version, dep, sunset] = item.split('@');
        if (!version || !/^v\d+$/.test(version) || !dep) return undefined;
        const deprecatedAt = new Date(dep);
        const sunsetAt = sunset ? new Date(sunset) : undefined;
        if (Number.isNaN(deprecatedAt.getTime()) || (sunsetAt && Number.isNaN(sunsetAt.getTime()))) return undefined;
        out.push(sunsetAt ? { version, deprecatedAt, sunsetAt } : { version, deprecatedAt });
      }
      return out;
    },
    fallback: [] as { version: string; deprecatedAt: Date; sunsetAt?: Date }[],
    docDefault: '(none)',
  },
} satisfies Record<string, Setting<unknown>>;
