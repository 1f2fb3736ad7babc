// The upstream's claims as one shape, whatever the provider: an OpenID provider's id_token (and userinfo,
// when its id_token is thin), or a plain OAuth 2.0 provider's user document read through its claim mapping
// (GitHub-style: `sub` from `id`, the e-mail from the verified primary of its e-mails list).
export interface UpstreamIdentity {
  /** The provider's id and slug. */
  provider: { id: string; slug: string };
  /** The upstream subject: with the provider, the key of a federated identity. */
  subject: string;
  email: string | null;
  /** Only when the upstream asserted it (OIDC `email_verified: true`, GitHub's `verified`). */
  emailVerified: boolean;
  name: string | null;
  givenName: string | null;
  familyName: string | null;
  preferredUsername: string | null;
  picture: string | null;
  /** For Microsoft: the tenant the user signed in from. */
  tenant: string | null;
  /** Every claim as the upstream sent it (for an operator's own mapping later; never logged whole). */
  claims: Record<string, unknown>;
}

/** The local claims a mapping may fill. */
export const MAPPABLE_CLAIMS = ['sub', 'email', 'email_verified', 'name', 'given_name', 'family_name', 'preferred_username', 'picture'] as const;

const MAX_CLAIM_LENGTH = 512;

/** A member of the document by name, or by a dotted path into nested objects ("data.attributes.email"). */
function member(document: Record<string, unknown>, path: string): unknown {
  let value: unknown = document;
  for (const part of path.split('.')) {
    if (!value || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A short string; numbers (GitHub's numeric id) become their decimal text; anything else is absent. */
function stringClaim(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.length > 0 && trimmed.length <= MAX_CLAIM_LENGTH ? trimmed : null;
}

/** Local claim names → their values from the upstream document (an identity mapping for OIDC claims). */
export function mappedClaims(document: Record<string, unknown>, mapping: Readonly<Record<string, string>>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...document };
  for (const [local, upstream] of Object.entries(mapping)) result[local] = member(document, upstream);
  return result;
}

/** GitHub's /user/emails: the primary address, verified only if GitHub says so. */
export function primaryEmail(list: unknown): { email: string; verified: boolean } | null {
  if (!Array.isArray(list)) return null;
  const primary = list.find((e) => e && typeof e === 'object' && (e as Record<string, unknown>).primary === true) as Record<string, unknown> | undefined;
  const email = stringClaim(primary?.email);
  return email ? { email, verified: primary?.verified === true } : null;
}

/** The identity, or null when the upstream gave no usable subject. */
export function upstreamIdentity(provider: { id: string; slug: string; preset: string | null }, claims: Record<string, unknown>): UpstreamIdentity | null {
  const subject = stringClaim(claims.sub);
  if (!subject) return null;
  const email = stringClaim(claims.email);
  // Entra's `email` is not verified by Microsoft unless the optional xms_edov claim says the domain's owner did.
  const verified = claims.email_verified === true || (provider.preset === 'microsoft' && claims.xms_edov === true);
  return {
    provider: { id: provider.id, slug: provider.slug },
    subject,
    email: email?.toLowerCase() ?? null,
    emailVerified: email !== null && verified,
    name: stringClaim(claims.name),
    givenName: stringClaim(claims.given_name),
    familyName: stringClaim(claims.family_name),
    preferredUsername: stringClaim(claims.preferred_username),
    picture: stringClaim(claims.picture),
    tenant: stringClaim(claims.tid),
    claims,
  };
}
