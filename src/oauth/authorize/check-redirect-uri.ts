// RFC 9700 2.1 and 4.1.3, RFC 6749 3.1.2: the redirect_uri must equal a registered value character for
// character — no normalisation, no prefix or wildcard matching. It is always required (OIDC Core 3.1.2.1).
// Anything else is answered with an error page, never a redirect.
import { PageError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { RequestParameters } from './parameters.js';

export function checkRedirectUri(params: RequestParameters, client: Pick<Client, 'id' | 'redirectUris'>): string {
  const refused = (reason: string) => ({ reason, client_id: client.id, registered_redirect_uris: client.redirectUris });
  if (params.duplicates.has('redirect_uri'))
    throw new PageError('Invalid request', 'The redirect_uri parameter was sent more than once.', 400, {}, { log: refused('redirect_uri_duplicated') });
  const uri = params.values.redirect_uri;
  if (uri === undefined) throw new PageError('Invalid request', 'The request has no redirect_uri.', 400, {}, { log: refused('redirect_uri_missing') });
  if (!client.redirectUris.includes(uri)) {
    throw new PageError(
      'Invalid redirect address',
      'The redirect_uri is not registered for this application.',
      400,
      {},
      {
        log: { ...refused('redirect_uri_not_registered'), presented_redirect_uri: uri },
      },
    );
  }
  return uri;
}
