// Settings of the pages: the demo application and branding (docs/demo.md).
import { bool, logoUrl, type Setting } from './setting.js';

export const pageSettings = {
  DEMO_ENABLED: {
    doc: 'Serve the built-in demo application at /demo (and register its client `gatehouse-demo` at start). On by default only when NODE_ENV=development.',
    expects: 'true or false',
    parse: bool,
    fallback: (p: Record<string, unknown>) => p.NODE_ENV === 'development',
    docDefault: 'true when NODE_ENV=development, else false',
  },
  BRAND_NAME: {
    doc: 'Product name shown on every page (login, consent, home, errors, demo).',
    expects: 'a non-empty name of at most 60 characters',
    parse: (raw: string) => (raw.trim() !== '' && raw.trim().length <= 60 && !/[\u0000-\u001f\u007f]/.test(raw) ? raw.trim() : undefined),
    fallback: 'Gatehouse',
  },
  BRAND_LOGO_URL: {
    doc: "Logo shown above every page: an https URL (its origin joins the pages' img-src) or an absolute path on this server.",
    expects: 'an https URL or a path starting with a single /',
    parse: logoUrl,
    fallback: undefined as string | undefined,
    docDefault: '(none)',
  },
  BRAND_ACCENT_COLOR: {
    doc: 'Accent colour of buttons and links, as #rgb or #rrggbb.',
    expects: 'a hex colour such as #2454d6',
    parse: (raw: string) => (/^#(?:[0-9a-fA-F]{3}){1,2}$/.test(raw.trim()) ? raw.trim().toLowerCase() : undefined),
    fallback: '#2454d6',
  },
} satisfies Record<string, Setting<unknown>>;
