// Dynamic client registration: POST /register (RFC 7591) guarded by an initial access token (or, with
// REGISTRATION=open, anonymous within a policy: open-registration.ts), and the client
// configuration endpoint GET/PUT/DELETE /register/:client_id (RFC 7592) guarded by the registration access
// token issued with the client. Metadata goes through the same validation as `gatehouse clients create`,
// then through the registration policy of the initial access token (policy.ts), which the client keeps
// for its later RFC 7592 updates. Every client created or changed here is audited in the transaction that
// writes it (client-events.ts): who asked is the initial access token's id, the registering address, or the
// client's own registration access token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../deps.js';
import { OAuthError } from '../../http/errors.js';
import { randomToken, sha256 } from '../../crypto/random.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import { clientMetadataView, createClient, usesSecret } from '../clients/create-client.js';
import { ClientMetadataError, validateClientMetadata, type ClientMetadata, type ClientMetadataInput } from '../clients/metadata.js';
import { endClient } from '../clients/end-client.js';
import { changedClientFields, clientEvent } from '../clients/client-events.js';
import { NO_STORE } from '../no-store.js';
import type { OutboundPolicy } from '../../http/outbound/outbound-policy.js';
import type { ResourceRegistry } from '../resources/registry.js';
import { initialAccessTokenId, requireInitialAccessToken, requireRegistrationAccess, spendInitialAccessToken } from './access.js';
import { enforceRegistrationPolicy, STRICT_POLICY, type RegistrationPolicy } from './policy.js';
import { isOpenRegistration, registerOpenClient } from './open-registration.js';

// Anyone may call these: per-address budget for machines (src/http/anonymous-limit.ts).
const route = { config: { face: 'oauth' as const, limit: 'anonymous' as const } };

async function asRegistrationError<T>(request: FastifyRequest, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof ClientMetadataError)) throw error;
    request.log.info({ registration_refused: error.error, reason: error.message }, 'client registration refused');
    throw new OAuthError(error.error, error.message);
  }
}

/** Metadata that passes both the shared rules and the registration policy. */
async function validated(
  request: FastifyRequest,
  policy: RegistrationPolicy,
  outbound: OutboundPolicy,
  resources: ResourceRegistry,
  allowedReceivers: readonly string[],
): Promise<ClientMetadata> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object.');
  return asRegistrationError(request, async () => {
    // Never operator-only scopes here: those are granted by `gatehouse clients create` alone.
    const metadata = await validateClientMetadata(body as ClientMetadataInput, {
      outbound,
      receivers: { ...outbound, allowedHosts: allowedReceivers },
      catalogue: await resources.catalogue(),
    });
    enforceRegistrationPolicy(metadata, policy);
    return metadata;
  });
}

function registrationView(issuer: string, client: Client, secrets: { secret?: string | undefined; registrationToken?: string }) {
  return {
    ...clientMetadataView(client),
    ...(secrets.secret !== undefined ? { client_secret: secrets.secret, client_secret_expires_at: 0 } : {}),
    ...(secrets.registrationToken !== undefined ? { registration_access_token: secrets.registrationToken } : {}),
    registration_client_uri: `${issuer}/register/${encodeURIComponent(client.id)}`,
  };
}

/** RFC 7592 2.2: the client type cannot change by update; a newly secret-based client gets a fresh secret. */
function secretChange(client: Client, metadata: ClientMetadata): { secret?: string; secretHash: string | null } {
  if (metadata.type !== client.type) throw new OAuthError('invalid_client_metadata', 'The client type (public or confidential) cannot change.');
  if (!usesSecret(metadata)) return { secretHash: null };
  if (client.secretHash) return { secretHash: client.secretHash };
  const secret = randomToken(32);
  return { secret, secretHash: sha256(secret) };
}

type RegistrationServices = Pick<
  OAuthDeps,
  'config' | 'clock' | 'store' | 'outbound' | 'clients' | 'clientRegistrations' | 'initialAccessTokens' | 'resources' | 'audit'
>;

export function registrationEndpoints(app: FastifyInstance, core: RegistrationServices): void {
  if (!core.config.REGISTRATION_ENABLED) return;
  const { clientRegistrations: clients, initialAccessTokens: initialTokens } = core;
  const issuer = core.config.ISSUER;
  const clientIdOf = (request: FastifyRequest) => (request.params as { client_id: string }).client_id;
  const noStore = (reply: FastifyReply) => reply.headers(NO_STORE);

  app.post('/register', route, async (request, reply) => {
    noStore(reply);
    if (isOpenRegistration(core.config, request.headers.authorization)) {
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object.');
      const client = await asRegistrationError(request, () => registerOpenClient(request, body as Record<string, unknown>, core));
      core.clients.forget(client.id);
      request.log.info({ client_id: client.id, provenance: client.provenance }, 'client self-registered');
      return reply.code(201).send({ ...clientMetadataView(client), registration: 'self_registered' });
    }
    const { tokenHash, policy } = await requireInitialAccessToken(request.headers.authorization, initialTokens);
    const metadata = await validated(request, policy, core.outbound, core.resources, core.config.WEBHOOK_ALLOWED_HOSTS);
    const registrationToken = randomToken(32);
    // The use is spent in the transaction that creates the client: a refused or failed registration costs none.
    const { client, secret } = await core.store.transaction(async (tx) => {
      const spent = await spendInitialAccessToken(tokenHash, tx.initialAccessTokens);
      const created = await createClient(tx.clients, metadata, { registrationTokenHash: sha256(registrationToken), registrationPolicy: spent });
      const who = { initial_access_token_id: initialAccessTokenId(tokenHash) };
      await core.audit.emit(clientEvent('client.registered', created.client, who, { traceId: request.id }), { tx });
      return created;
    });
    // A lookup of this id may have been remembered as unknown, and the origins index predates the client.
    core.clients.forget(client.id);
    return reply.code(201).send(registrationView(issuer, client, { secret, registrationToken }));
  });

  app.get('/register/:client_id', route, async (request, reply) => {
    noStore(reply);
    const client = await requireRegistrationAccess(request.headers.authorization, clientIdOf(request), clients);
    return registrationView(issuer, client, {});
  });

  app.put('/register/:client_id', route, async (request, reply) => {
    noStore(reply);
    const client = await requireRegistrationAccess(request.headers.authorization, clientIdOf(request), clients);
    if ((request.body as { client_id?: unknown } | null)?.client_id !== client.id) {
      throw new OAuthError('invalid_client_metadata', 'The body must carry the same client_id (RFC 7592 2.2).');
    }
    const metadata = await validated(request, client.registrationPolicy ?? STRICT_POLICY, core.outbound, core.resources, core.config.WEBHOOK_ALLOWED_HOSTS);
    const { secret, secretHash } = secretChange(client, metadata);
    const changes = { ...metadata, secretHash };
    const updated = await core.store.transaction(async (tx) => {
      const written = await tx.clients.update(client.id, changes);
      const changed = changedClientFields(client, changes);
      if (written && changed.length > 0)
        await core.audit.emit(
          clientEvent('client.registration_updated', written, { via: 'registration_access_token' }, { traceId: request.id, changedFields: changed }),
          {
            tx,
          },
        );
      return written;
    });
    core.clients.forget(client.id);
    if (!updated) throw new OAuthError('invalid_token', 'The client no longer exists.', { status: 401 });
    return registrationView(issuer, updated, { secret });
  });

  app.delete('/register/:client_id', route, async (request, reply) => {
    noStore(reply);
    const client = await requireRegistrationAccess(request.headers.authorization, clientIdOf(request), clients);
    await endClient(core, client.id, 'delete', {
      onEnded: (tx) =>
        core.audit.emit(clientEvent('client.registration_deleted', client, { via: 'registration_access_token' }, { traceId: request.id }), { tx }),
    });
    return reply.code(204).send();
  });
}
