// A client as the admin API shows it (never a secret or its hash), its validators, and PATCH (RFC 7396)
// applied to its writable view.
import { strongEtag, type Validators } from '../../http/conditional.js';
import type { Static } from '@sinclair/typebox';
import type { Client } from '../../storage/repositories/clients-repository.js';
import { BUILT_IN_CLIENT_IDS, clientView } from '../../admin-services/clients-service.js';
import { mergePatched } from '../merge-patched.js';
import { ClientInputSchema, WRITABLE_FIELDS, type ClientInputBody, type ClientSchema } from './schemas.js';

/** Typed as ClientSchema, which serialises it: the service's view (shared with the CLI) is an untyped record. */
export const representClient = (client: Client) =>
  ({
    ...clientView(client),
    require_mfa: client.requireMfa,
    token_exchange_impersonation: client.tokenExchangeImpersonation,
    built_in: BUILT_IN_CLIENT_IDS.has(client.id),
    provenance: provenanceOf(client),
    ...(client.resources ? { resources: client.resources } : {}),
  }) as Static<typeof ClientSchema>;

/** Who made the client: an operator, a registration with an initial access token, the client itself, or its metadata document (docs/agents.md). */
const provenanceOf = (client: Client) => client.provenance ?? (client.registrationTokenHash ? 'dynamic_registration' : 'operator');

/** Strong: the version changes with every write, including secret rotation and disabling. */
export const clientValidators = (client: Client): Validators => ({ etag: strongEtag('client', client.id, client.version), lastModified: client.updatedAt });

/** The writable members of the current client, as a PUT body would carry them. */
function writableView(client: Client): ClientInputBody {
  const view = clientView(client);
  const body: Record<string, unknown> = {};
  for (const field of WRITABLE_FIELDS) if (view[field] !== undefined) body[field] = view[field];
  return body as ClientInputBody;
}

/** The full document this merge patch produces; a change to a read-only member is 422, a wrong shape 400. */
export const patchedClient = (client: Client, patch: unknown): ClientInputBody =>
  mergePatched(patch, { name: 'client', schema: ClientInputSchema, view: clientView(client), writable: writableView(client) });

/** The service input of a PUT/PATCH/POST document (RFC 7591 member names). */
export function clientInput(body: ClientInputBody) {
  const { allowed_origins, skip_consent, require_mfa, token_exchange_impersonation, disabled, identity_providers, ...metadata } = body;
  return {
    metadata: {
      ...metadata,
      jwks: metadata.jwks ?? undefined,
      jwks_uri: metadata.jwks_uri ?? undefined,
      backchannel_logout_uri: metadata.backchannel_logout_uri ?? undefined,
    },
    allowedOrigins: allowed_origins ?? [],
    skipConsent: skip_consent ?? false,
    requireMfa: require_mfa ?? false,
    tokenExchangeImpersonation: token_exchange_impersonation ?? false,
    ...(disabled !== undefined ? { disabled } : {}),
    identityProviders: identity_providers ?? null,
  };
}
