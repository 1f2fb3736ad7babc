// One callback per provider, under this server's issuer: a response can only be processed as the provider
// whose callback it reached (mix-up defence, RFC 9700 4.4.2). The operator registers this URI upstream.
export const FEDERATION_PREFIX = '/federation';

const federationCallbackPath = (slug: string): string => `${FEDERATION_PREFIX}/${encodeURIComponent(slug)}/callback`;

export const federationRedirectUri = (issuer: string, slug: string): string => `${issuer.replace(/\/+$/, '')}${federationCallbackPath(slug)}`;
