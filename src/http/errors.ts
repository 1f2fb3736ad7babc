// Errors are values: each carries a stable code and an HTTP status, and is turned into a response
// in exactly one place per face (see error-edge.ts). Nothing below the HTTP edge formats responses.
import { problemTypes, type ProblemCode } from './problem-types.js';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * What the log line of a refusal says beyond the answer (refusal-log.ts): a stable reason code and the
 * identifiers an operator needs (client_id, presented vs registered redirect_uri). Never secrets or tokens.
 */
export interface RefusalDetails {
  reason: string;
  client_id?: string | undefined;
  [field: string]: string | number | boolean | readonly string[] | undefined;
}

interface ErrorExtras {
  headers?: Record<string, string>;
  cause?: unknown;
  log?: RefusalDetails;
}

/** An error of the resource API face, rendered as RFC 9457 application/problem+json. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly log: RefusalDetails | undefined;

  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    readonly extras: ErrorExtras & { errors?: FieldError[]; status?: number } = {},
  ) {
    super(detail ?? problemTypes[code].title, extras.cause === undefined ? undefined : { cause: extras.cause });
    this.status = extras.status ?? problemTypes[code].status;
    this.headers = extras.headers ?? {};
    this.log = extras.log;
  }

  get errors(): FieldError[] | undefined {
    return this.extras.errors;
  }
}

/** RFC 6749 5.2 / RFC 7009 / RFC 7662 / RFC 7591 error codes. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unsupported_token_type'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'login_required'
  | 'consent_required'
  | 'interaction_required'
  /** OpenID Connect Core Error Code unmet_authentication_requirements 1.0 (final, 2022): the OP cannot meet the RP's authentication requirements. */
  | 'unmet_authentication_requirements'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'slow_down'
  /** RFC 8628 3.5: the device flow's user has not decided yet / the device_code expired. */
  | 'authorization_pending'
  | 'expired_token';

/** An error of the OAuth face, rendered as `{"error", "error_description"}` JSON (RFC 6749 5.2). */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  readonly headers: Record<string, string>;
  readonly status: number;
  readonly log: RefusalDetails | undefined;

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    extras: ErrorExtras & { status?: number } = {},
  ) {
    super(description, extras.cause === undefined ? undefined : { cause: extras.cause });
    this.status = extras.status ?? (error === 'invalid_client' || error === 'invalid_token' ? 401 : error === 'insufficient_scope' ? 403 : 400);
    this.headers = extras.headers ?? {};
    this.log = extras.log;
  }
}

/** An error of the browser face: a 400-class HTML page, used where redirecting would be unsafe. */
export class PageError extends Error {
  override readonly name = 'PageError';
  /** A way forward known to be safe (a path of this server or a validated address); else the home page. */
  readonly back: PageLink | undefined;
  readonly log: RefusalDetails | undefined;

  constructor(
    readonly title: string,
    readonly detail: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
    extras: { back?: PageLink; log?: RefusalDetails } = {},
  ) {
    super(detail);
    this.back = extras.back;
    this.log = extras.log;
  }
}

export interface PageLink {
  href: string;
  label: string;
}

/**
 * RFC 6749 4.1.2.1: error_description may use only %x20-21 / %x23-5B / %x5D-7E. Everything else
 * (CR, LF, TAB, quote, backslash, non-ASCII) becomes a space, so no input can smuggle headers. `<` and `>`
 * are allowed by that grammar but dropped too, so a reflected value never carries markup.
 */
export function safeDescription(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x3B\x3D\x3F-\x5B\x5D-\x7E]/g, ' ').slice(0, 300);
}
