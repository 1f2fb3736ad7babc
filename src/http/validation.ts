// Semantic validation failures (docs/api-conventions.md): the body parsed and had the right shape, but
// values break a rule → 422 VALIDATION_ERROR listing each field. Shape/type errors stay 400.
import { ProblemError, type FieldError } from './errors.js';

export function validationFailed(errors: FieldError[]): ProblemError {
  return new ProblemError('VALIDATION_ERROR', 'Some fields failed validation.', { errors });
}

/** Collects field errors; `throwIfAny` raises one 422 listing all of them. */
export function fieldErrors() {
  const errors: FieldError[] = [];
  return {
    add(field: string, message: string) {
      errors.push({ field, message });
    },
    throwIfAny() {
      if (errors.length > 0) throw validationFailed(errors);
    },
  };
}
