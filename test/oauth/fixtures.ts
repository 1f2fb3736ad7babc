// Test fixtures for the authorization-server tests: clients registered through the same code path as the
// CLI, and raw form posts for the cases real client libraries refuse to send.
import type { Core } from '../../src/core.js';
import { clientsRepository, type Client } from '../../src/storage/repositories/clients-repository.js';
import { validateClientMetadata, type ClientMetadataInput } from '../../src/oauth/clients/metadata.js';
import { createClient } from '../../src/oauth/clients/create-client.js';

export interface RegisteredClient {
  client: Client;
  id: string;
  secret: string;
}

export async function registerClient(
  core: Core,
  input: ClientMetadataInput = {},
  options: { secret?: string; skipConsent?: boolean } = {},
): Promise<RegisteredClient> {
  const metadata = await validateClientMetadata(
    {
      client_name: 'test client',
      grant_types: ['client_credentials'],
      scope: 'orders:read users:read',
      token_endpoint_auth_method: 'client_secret_basic',
      ...input,
    },
    { outbound: core.outbound, catalogue: await core.resources.catalogue(), operator: true },
  );
  const created = await createClient(clientsRepository(core.db, core.clock), metadata, {
    ...(options.secret !== undefined ? { importedSecret: options.secret } : {}),
    skipConsent: options.skipConsent ?? false,
  });
  return { client: created.client, id: created.client.id, secret: created.secret ?? '' };
}

/** RFC 6749 2.3.1: each half form-url-encoded, then base64. */
export const basicAuth = (id: string, secret: string): string => `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64')}`;

export const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);

export async function postForm(
  url: string,
  params: Record<string, string> | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown>; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: typeof params === 'string' ? params : new URLSearchParams(params).toString(),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = {};
  }
  return { status: response.status, headers: response.headers, body, text };
}
