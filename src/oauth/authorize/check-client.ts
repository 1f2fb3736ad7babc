// An unknown, disabled or duplicated client_id cannot be trusted with a redirect: the user sees an
// error page instead (RFC 6749 4.1.2.1, RFC 9700 4.11).
import { PageError } from '../../http/errors.js';
import type { Client, ClientsRepository } from '../../storage/repositories/clients-repository.js';
import type { RequestParameters } from './parameters.js';

export async function checkClient(params: RequestParameters, clients: Pick<ClientsRepository, 'find'>): Promise<Client> {
  if (params.duplicates.has('client_id'))
    throw new PageError('Invalid request', 'The client_id parameter was sent more than once.', 400, {}, { log: { reason: 'client_id_duplicated' } });
  const id = params.values.client_id;
  if (id === undefined)
    throw new PageError('Invalid request', 'The request names no client (client_id is missing).', 400, {}, { log: { reason: 'client_id_missing' } });
  const client = id.length <= 200 ? await clients.find(id) : undefined;
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
