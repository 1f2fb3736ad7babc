// The admin face's one translation of service errors into Problem Details: rule errors with stable codes,
// and the RFC 7591 metadata errors the client rules share with /register.
import { ProblemError } from '../http/errors.js';
import { validationFailed } from '../http/validation.js';
import { AdminFieldErrors, AdminRuleError } from '../admin-services/rule-error.js';
import { ClientMetadataError } from '../oauth/clients/metadata.js';

function asProblem(error: unknown, resource: string): unknown {
  if (error instanceof ClientMetadataError) {
    return validationFailed([{ field: error.error === 'invalid_redirect_uri' ? 'redirect_uris' : 'metadata', message: error.message }]);
  }
  if (error instanceof AdminFieldErrors) return validationFailed([...error.errors]);
  if (!(error instanceof AdminRuleError)) return error;
  switch (error.code) {
    case 'invalid':
      return validationFailed([
        { field: error.field ?? '', message: error.value !== undefined ? `${JSON.stringify(error.value)} ${error.message}` : error.message },
      ]);
    case 'not-found':
      return new ProblemError('not-found', `No such ${resource}.`);
    case 'stale':
      return new ProblemError('precondition-failed', `The ${resource} changed since it was read; read it again and retry with the new ETag.`);
    case 'conflict':
      return new ProblemError('conflict', error.message);
  }
}

/** Runs a service call; its errors leave as problems. */
export async function asProblems<T>(resource: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asProblem(error, resource);
  }
}
