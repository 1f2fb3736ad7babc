// The operator's branding (BRAND_NAME, BRAND_LOGO_URL, BRAND_ACCENT_COLOR), validated by config.ts and
// shown on every server-rendered page. The colour reaches the pages through a generated stylesheet,
// never a style attribute, so the CSP keeps `style-src 'self'` without 'unsafe-inline'.
import type { FastifyReply } from 'fastify';
import type { Config } from '../config.js';

export interface Brand {
  readonly name: string;
  /** An https URL or a path on this server (config.ts refuses anything else). */
  readonly logoUrl?: string;
  /** #rgb or #rrggbb, nothing else (config.ts): it is written into CSS. */
  readonly accentColor: string;
}

export const DEFAULT_BRAND: Brand = { name: 'Gatehouse', accentColor: '#2454d6' };

export function brandFromConfig(config: Pick<Config, 'BRAND_NAME' | 'BRAND_LOGO_URL' | 'BRAND_ACCENT_COLOR'>): Brand {
  return {
    name: config.BRAND_NAME,
    accentColor: config.BRAND_ACCENT_COLOR,
    ...(config.BRAND_LOGO_URL ? { logoUrl: config.BRAND_LOGO_URL } : {}),
  };
}

/** The origin an https logo is loaded from, for the pages' img-src; undefined for a path ('self' covers it). */
function logoOrigin(brand: Brand): string | undefined {
  return brand.logoUrl?.startsWith('https://') ? new URL(brand.logoUrl).origin : undefined;
}

/** Adds the logo's origin to a page CSP's img-src (the one source of images besides 'self'); idempotent. */
function withLogoSource(csp: string, brand: Brand): string {
  const origin = logoOrigin(brand);
  return origin ? csp.replace("img-src 'self';", `img-src 'self' ${origin};`) : csp;
}

/** For onSend hooks: lets the page's logo load under whatever CSP the page was given. */
export function allowLogo(reply: FastifyReply, brand: Brand): void {
  const csp = reply.getHeader('content-security-policy');
  if (typeof csp === 'string') reply.header('content-security-policy', withLogoSource(csp, brand));
}

export function brandStylesheet(brand: Brand): string {
  if (!/^#(?:[0-9a-f]{3}){1,2}$/i.test(brand.accentColor)) throw new Error('accent colour must be validated hex');
  return `:root { --accent: ${brand.accentColor}; }\n`;
}
