// Dynamic client registration: POST /register (RFC 7591) guarded by an initial access token, and the client
// configuration endpoint GET/PUT/DELETE /register/:client_id (RFC 7592) guarded by the registration access
// token issued with the client. Metadata goes through the same validation as `gatehouse clients create`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../core.js';
import { OAuthError } from '../../http/errors.js';
import { randomToken, sha256 } from '../../crypto/random.js';
import { clientsRepository, type Client } from '../../storage/clients-repository.js';
import { initialAccessTokensRepository } from '../../storage/initial-access-tokens-repository.js';
import { clientMetadataView, createClient, usesSecret } from '../clients/create-client.js';
import { ClientMetadataError, validateClientMetadata, type ClientMetadata, type ClientMetadataInput } from '../clients/metadata.js';
import { endClient } from '../clients/end-client.js';
import { NO_STORE } from '../no-store.js';
import { requireInitialAccessToken, requireRegistrationAccess } from './access.js';

const route = { config: { face: 'oauth' as const } };

async function validated(body: unknown): Promise<ClientMetadata> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object.');
  try {
    return await validateClientMetadata(body as ClientMetadataInput);
  } catch (error) {
    if (error instanceof ClientMetadataError) throw new OAuthError(error.error, error.message);
    throw error;
  }
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

export function registrationEndpoints(app: FastifyInstance, core: Core): void {
  if (!core.config.REGISTRATION_ENABLED) return;
  const clients = clientsRepository(core.db, core.clock);
  const initialTokens = initialAccessTokensRepository(core.db, core.clock);
  const issuer = core.config.ISSUER;
  const clientIdOf = (request: FastifyRequest) => (request.params as { client_id: string }).client_id;
  const noStore = (reply: FastifyReply) => reply.headers(NO_STORE);

  app.post('/register', route, async (request, reply) => {
    noStore(reply);
    await requireInitialAccessToken(request.headers.authorization, initialTokens);
    const metadata = await validated(request.body);
    const registrationToken = randomToken(32);
    const { client, secret } = await createClient(clients, metadata, { registrationTokenHash: sha256(registrationToken) });
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
    const metadata = await validated(request.body);
    const { secret, secretHash } = secretChange(client, metadata);
    const updated = await clients.update(client.id, { ...metadata, secretHash });
    core.clients.forget(client.id);
    if (!updated) throw new OAuthError('invalid_token', 'The client no longer exists.', { status: 401 });
    return registrationView(issuer, updated, { secret });
  });

  app.delete('/register/:client_id', route, async (request, reply) => {
    noStore(reply);
    const client = await requireRegistrationAccess(request.headers.authorization, clientIdOf(request), clients);
    await endClient(core, client.id, 'delete');
    return reply.code(204).send();
  });
}
