// Value rules for user input (422 VALIDATION_ERROR, every failing field listed). The schema has already
// checked JSON types; these are the rules a well-typed value can still break.
import { fieldErrors } from '../../http/validation.js';
import { verifiedAfterWrite } from '../../user-rules/verified-claims.js';
import type { User } from '../../storage/repositories/users-repository.js';
import type { ReplaceUserBody } from './user-schemas.js';

const USERNAME = /^[A-Za-z0-9._@+-]{1,64}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const PHONE = /^\+?[0-9 ()./-]{3,32}$/;
const MAX_TEXT = 200;
const TEXT_FIELDS = ['name', 'given_name', 'family_name'] as const;

/** Validates a full user document (create, replace, or the result of a merge patch). */
export function validateUser(input: ReplaceUserBody, current?: User): void {
  const errors = fieldErrors();
  if (!USERNAME.test(input.username)) errors.add('username', 'must be 1-64 characters of letters, digits and . _ @ + -');
  if (input.password !== undefined && (input.password.length < 8 || input.password.length > 1024)) {
    errors.add('password', 'must be 8 to 1024 characters');
  }
  for (const field of TEXT_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && (value.length > MAX_TEXT || /[\u0000-\u001f]/.test(value)))
      errors.add(field, `must be at most ${MAX_TEXT} printable characters`);
  }
  if (typeof input.email === 'string' && (input.email.length > 254 || !EMAIL.test(input.email))) errors.add('email', 'must be an email address');
  if (typeof input.phone_number === 'string' && !PHONE.test(input.phone_number)) errors.add('phone_number', 'must be a phone number');
  for (const [key, value] of Object.entries(input.address ?? {})) {
    if (typeof value === 'string' && value.length > MAX_TEXT) errors.add(`address.${key}`, `must be at most ${MAX_TEXT} characters`);
  }
  if (input.current_password !== undefined && input.password === undefined) errors.add('current_password', 'is only used together with password');
  // Nobody vouches for an address through the API: a verified flag may be kept or cleared, never raised.
  const contact = { email: input.email ?? null, phone_number: input.phone_number ?? null };
  const requested = { email_verified: input.email_verified, phone_number_verified: input.phone_number_verified };
  for (const { field, message } of verifiedAfterWrite('api', current, contact, requested).errors) errors.add(field, message);
  errors.throwIfAny();
}
