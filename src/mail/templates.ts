// The e-mail templates (docs/email.md): each message has a plain-text and an HTML body built from the
// catalogue (catalogue.ts) in the recipient's language and the operator's branding (BRAND_NAME,
// BRAND_LOGO_URL, BRAND_ACCENT_COLOR). Every value is escaped for HTML; the only markup is the template's.
// Mail clients ignore stylesheets, so the HTML carries its few styles inline and works without them.
import type { Brand } from '../http/brand.js';
import { escapeHtml } from '../http/html.js';
import { catalogue, fill, type Locale } from './catalogue.js';

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export interface MailContext {
  brand: Brand;
  /** Base for a logo given as a path on this server. */
  issuer: string;
  locale: Locale;
}

export interface InvitationParams {
  name?: string | undefined;
  link: string;
  hours: number;
}

const MAIL_TEMPLATES = [
  'invitation',
  'password_reset',
  'signup_verification',
  'signup_existing',
  'email_change_verification',
  'password_changed',
  'email_changed',
  'factor_added',
] as const;
export type MailTemplate = (typeof MAIL_TEMPLATES)[number];

function logoUrl(context: MailContext): string | undefined {
  const logo = context.brand.logoUrl;
  return logo ? new URL(logo, context.issuer).href : undefined;
}

/** A paragraph-per-line layout with one call-to-action button: every message has this shape. */
function layout(
  context: MailContext,
  parts: { paragraphs: string[]; action?: { label: string; link: string }; after: string[] },
): { text: string; html: string } {
  const { brand } = context;
  const footer = fill(catalogue(context.locale).footer, { brand: brand.name });
  const text = [...parts.paragraphs, ...(parts.action ? [`${parts.action.label}:\n${parts.action.link}`] : []), ...parts.after, '--', footer].join('\n\n');
  const logo = logoUrl(context);
  const accent = /^#(?:[0-9a-f]{3}){1,2}$/i.test(brand.accentColor) ? brand.accentColor : '#2454d6';
  const p = (line: string) => `<p style="margin:0 0 16px">${escapeHtml(line)}</p>`;
  const html = `<!doctype html>
<html lang="${context.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(brand.name)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7">
<div style="max-width:560px;margin:0 auto;padding:24px 16px;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:16px;line-height:1.5;color:#1f2328">
${logo ? `<p style="margin:0 0 16px"><img src="${escapeHtml(logo)}" alt="${escapeHtml(brand.name)}" style="max-height:48px;max-width:100%"></p>` : `<p style="margin:0 0 16px;font-weight:600">${escapeHtml(brand.name)}</p>`}
<div style="background:#ffffff;border-radius:8px;padding:24px">
${parts.paragraphs.map(p).join('\n')}
${
  parts.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(parts.action.link)}" style="display:inline-block;background:${accent};color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${escapeHtml(parts.action.label)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#57606a;word-break:break-all">${escapeHtml(parts.action.link)}</p>`
    : ''
}
${parts.after.map(p).join('\n')}
</div>
<p style="margin:16px 0 0;font-size:13px;color:#57606a">${escapeHtml(footer)}</p>
</div>
</body></html>
`;
  return { text, html };
}

export function renderInvitation(context: MailContext, params: InvitationParams): RenderedMail {
  const t = catalogue(context.locale).invitation;
  const values = { brand: context.brand.name, name: params.name ?? '', hours: params.hours };
  const greeting = params.name ? fill(t.greetingNamed, values) : t.greeting;
  const body = layout(context, {
    paragraphs: [greeting, fill(t.body, values)],
    action: { label: t.action, link: params.link },
    after: [fill(t.expiry, values), t.ignore],
  });
  return { subject: fill(t.subject, values), ...body };
}

type Params = Record<string, unknown>;
const text = (params: Params, key: string) => (typeof params[key] === 'string' ? (params[key] as string) : undefined);

/**
 * The self-service messages and security notices (src/self-service/): each is a body, one action with its
 * link, and the lines after it, from the catalogue. `required` names the params without which the
 * message cannot be written (the outbox makes it a dead letter).
 */
const SIMPLE: Record<
  Exclude<MailTemplate, 'invitation'>,
  { required: string[]; build(t: ReturnType<typeof catalogue>, params: Params): { subject: string; paragraphs: string[]; action: string; after: string[] } }
> = {
  password_reset: {
    required: ['link', 'username', 'minutes'],
    build: (t, _p) => ({
      subject: t.passwordReset.subject,
      paragraphs: [t.passwordReset.body],
      action: t.passwordReset.action,
      after: [t.passwordReset.expiry, t.passwordReset.ignore],
    }),
  },
  signup_verification: {
    required: ['link', 'hours'],
    build: (t) => ({
      subject: t.signupVerification.subject,
      paragraphs: [t.signupVerification.body],
      action: t.signupVerification.action,
      after: [t.signupVerification.expiry, t.signupVerification.ignore],
    }),
  },
  signup_existing: {
    required: ['link', 'username'],
    build: (t) => ({
      subject: t.signupExisting.subject,
      paragraphs: [t.signupExisting.body],
      action: t.signupExisting.action,
      after: [t.signupExisting.ignore],
    }),
  },
  email_change_verification: {
    required: ['link', 'username', 'hours'],
    build: (t) => ({
      subject: t.emailChangeVerification.subject,
      paragraphs: [t.emailChangeVerification.body],
      action: t.emailChangeVerification.action,
      after: [t.emailChangeVerification.expiry, t.emailChangeVerification.ignore],
    }),
  },
  password_changed: {
    required: ['link', 'username'],
    build: (t) => ({ subject: t.notices.passwordChangedSubject, paragraphs: [t.notices.passwordChanged], action: t.notices.action, after: [t.notices.notYou] }),
  },
  email_changed: {
    required: ['link', 'username', 'email'],
    build: (t) => ({ subject: t.notices.emailChangedSubject, paragraphs: [t.notices.emailChanged], action: t.notices.action, after: [t.notices.notYou] }),
  },
  factor_added: {
    required: ['link', 'username', 'factor'],
    build: (t, p) => ({
      subject: t.notices.factorAddedSubject,
      paragraphs: [p.factor === 'passkey' ? t.notices.passkeyAdded : p.factor === 'provider' ? t.notices.providerLinked : t.notices.totpAdded],
      action: t.notices.action,
      after: [t.notices.notYou],
    }),
  },
};

/** Renders a template by name from an outbox payload; undefined for an unknown template or bad params. */
export function renderTemplate(context: MailContext, template: string, params: Params): RenderedMail | undefined {
  if (template === 'invitation') {
    if (typeof params.link !== 'string' || typeof params.hours !== 'number') return undefined;
    return renderInvitation(context, { link: params.link, hours: params.hours, name: typeof params.name === 'string' ? params.name : undefined });
  }
  if (!Object.hasOwn(SIMPLE, template)) return undefined;
  const spec = SIMPLE[template as keyof typeof SIMPLE];
  if (spec.required.some((key) => params[key] === undefined || params[key] === null)) return undefined;
  const values: Record<string, string | number> = { brand: context.brand.name };
  for (const key of ['username', 'email', 'minutes', 'hours', 'provider']) {
    const value = params[key];
    if (typeof value === 'string' || typeof value === 'number') values[key] = value;
  }
  const built = spec.build(catalogue(context.locale), params);
  const body = layout(context, {
    paragraphs: built.paragraphs.map((line) => fill(line, values)),
    action: { label: fill(built.action, values), link: text(params, 'link')! },
    after: built.after.map((line) => fill(line, values)),
  });
  return { subject: fill(built.subject, values), ...body };
}
