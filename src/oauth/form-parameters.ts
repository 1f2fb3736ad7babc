// The form body of /token, /revoke, /introspect (RFC 6749 3.2): application/x-www-form-urlencoded only,
// each parameter at most once (RFC 6749 3.1 "MUST NOT be included more than once"), and a parameter sent
// without a value is treated as omitted (RFC 6749 3.1).
import { OAuthError } from '../http/errors.js';

export type FormParameters = Readonly<Record<string, string>>;

export interface FormRequest {
  readonly headers: { readonly 'content-type'?: string | undefined };
  readonly body: unknown;
}

const isFormContentType = (value: string | undefined): boolean =>
  value !== undefined && value.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';

export function formParameters(request: FormRequest): FormParameters {
  if (!isFormContentType(request.headers['content-type']) || typeof request.body !== 'object' || request.body === null) {
    throw new OAuthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.body)) {
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `Parameter ${name} is repeated.`);
    if (value !== '') out[name] = value;
  }
  return out;
}
