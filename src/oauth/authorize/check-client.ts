// An unknown, disabled or duplicated client_id cannot be trusted with a redirect: the user sees an
// error page instead (RFC 6749 4.1.2.1, RFC 9700 4.11).
import { PageError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { ClientLookup } from '../clients/client-cache.js';
import type { RequestParameters } from './parameters.js';

export async function checkClient(params: RequestParameters, clients: Pick<ClientLookup, 'find' | 'refusal'>): Promise<Client> {
  if (params.duplicates.has('client_id'))
    throw new PageError('Invalid request', 'The client_id parameter was sent more than once.', 400, {}, { log: { reason: 'client_id_duplicated' } });
  const id = params.values.client_id;
  if (id === undefined)
    throw new PageError('Invalid request', 'The request names no client (client_id is missing).', 400, {}, { log: { reason: 'client_id_missing' } });
  const client = id.length <= 200 ? await clients.find(id) : undefined;
  // A client_id that is a metadata document URL (docs/agents.md): say why its document was not accepted.
  const refusal = client ? undefined : clients.refusal?.(id);
  if (refusal)
    throw new PageError(
      'Application not accepted',
      refusal.message,
      400,
      {},
      { log: { reason: 'metadata_document_refused', refusal: refusal.code, client_id: id } },
    );
  if (!client)
    throw new PageError(
      'Unknown application',
      'The application that sent you here is not registered.',
      400,
      {},
      { log: { reason: 'unknown_client', client_id: id } },
    );
  return client;
}
