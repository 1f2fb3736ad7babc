// RFC 6749 2.3.1 + RFC 7617 2: `Authorization: Basic base64(urlencode(id) ":" urlencode(secret))`.
// Both halves are form-url-decoded, so a secret containing `: + % / = space` survives the trip.
import { ClientAuthFailure } from './failure.js';

export interface BasicCredentials {
  clientId: string;
  secret: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const formDecode = (value: string): string => {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new ClientAuthFailure('malformed_basic_credentials', 'not form-url-encoded');
  }
};

export const isBasic = (authorization: string | undefined): authorization is string => /^basic /i.test(authorization ?? '');

export function parseBasic(authorization: string): BasicCredentials {
  const encoded = authorization.slice('basic '.length).trim();
  if (!BASE64.test(encoded)) throw new ClientAuthFailure('malformed_basic_credentials', 'not base64');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new ClientAuthFailure('malformed_basic_credentials', 'no colon');
  const clientId = formDecode(decoded.slice(0, colon));
  if (clientId === '') throw new ClientAuthFailure('malformed_basic_credentials', 'empty client id');
  return { clientId, secret: formDecode(decoded.slice(colon + 1)) };
}
