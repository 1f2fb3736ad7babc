// Reads the authorization request's parameters from the query (GET) or form body (POST).
// RFC 6749 3.1: parameters sent without a value are treated as omitted, and no parameter may be
// included more than once. Duplicates are remembered, not resolved: each check decides what they mean.
// Only the parameters of AUTHORIZATION_PARAMETERS are read at all: anything else is dropped here, so an
// unauthenticated caller cannot make the server store (in the interaction) more than those, each bounded.

/**
 * Every parameter /authorize understands, with the longest value it accepts (in characters). To support
 * a new parameter, add it here; its raw value is then kept in the parked request (`parameters`) and in the
 * restart link, unless it is parsed into a field of AuthorizationRequest (PARSED_PARAMETERS).
 */
export const AUTHORIZATION_PARAMETERS = {
  client_id: 200,
  redirect_uri: 2048,
  response_type: 64,
  response_mode: 32,
  scope: 1024,
  state: 2048,
  nonce: 512,
  code_challenge: 128,
  code_challenge_method: 16,
  prompt: 64,
  max_age: 16,
  login_hint: 256,
  id_token_hint: 4096,
  resource: 512,
  // OIDC Core 3.1.2.1 and 5.5: read by the second-factor policy (src/interaction/mfa/acr.ts).
  acr_values: 512,
  claims: 2048,
  // RFC 9449 10: a JWK SHA-256 thumbprint is 43 characters; longer values are refused by checkDpopJkt anyway.
  dpop_jkt: 64,
  // Read only to be refused explicitly (request_not_supported), never stored.
  request: 8192,
  request_uri: 8192,
} as const satisfies Record<string, number>;

export type AuthorizationParameter = keyof typeof AUTHORIZATION_PARAMETERS;

/**
 * The parameters of one request together, as JSON-encoded UTF-8 bytes of their names and values. The
 * parked interaction holds each once (raw or parsed), so it is this size plus a few hundred bytes of names.
 */
export const MAX_AUTHORIZATION_PARAMETERS_BYTES = 4096;

export interface RequestParameters<K extends string = AuthorizationParameter> {
  /** Single, non-empty values of known parameters only. */
  readonly values: Readonly<Partial<Record<K, string>>>;
  readonly duplicates: ReadonlySet<K>;
}

/** The parameters named in `known` (by default those of /authorize); every other one is dropped. */
export function readParameters<K extends string = AuthorizationParameter>(
  source: unknown,
  known: Readonly<Record<K, number>> = AUTHORIZATION_PARAMETERS as unknown as Record<K, number>,
): RequestParameters<K> {
  const values: Partial<Record<K, string>> = {};
  const duplicates = new Set<K>();
  const isKnown = (name: string): name is K => Object.hasOwn(known, name);
  if (source && typeof source === 'object') {
    for (const [name, raw] of Object.entries(source as Record<string, unknown>)) {
      if (!isKnown(name)) continue;
      const present = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string' && v !== '');
      if (present.length > 1) duplicates.add(name);
      else if (present.length === 1) values[name] = present[0]!;
    }
  }
  return { values, duplicates };
}

/** The JSON-encoded size of the parameters, as they are stored. */
export const storedSize = (values: Readonly<Partial<Record<string, string>>>): number =>
  Object.entries(values).reduce((sum, [name, value]) => sum + Buffer.byteLength(JSON.stringify(name)) + Buffer.byteLength(JSON.stringify(value ?? '')), 0);
