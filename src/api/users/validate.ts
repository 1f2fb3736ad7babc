// Value rules for user input (422 VALIDATION_ERROR, every failing field listed). The schema has already
// checked JSON types; these are the rules a well-typed value can still break.
import type { Principal } from '../principal.js';
import { fieldErrors } from '../../http/validation.js';
import type { ReplaceUserBody } from './schemas.js';

const USERNAME = /^[A-Za-z0-9._@+-]{1,64}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const PHONE = /^\+?[0-9 ()./-]{3,32}$/;
const MAX_TEXT = 200;
const TEXT_FIELDS = ['name', 'given_name', 'family_name'] as const;
const VERIFIED_FIELDS = ['email_verified', 'phone_number_verified'] as const;

/** Validates a full user document (create, replace, or the result of a merge patch). */
export function validateUser(input: ReplaceUserBody, principal: Principal, current?: Pick<ReplaceUserBody, 'email_verified' | 'phone_number_verified'>): void {
  const errors = fieldErrors();
  if (!USERNAME.test(input.username)) errors.add('username', 'must be 1-64 characters of letters, digits and . _ @ + -');
  if (input.password !== undefined && (input.password.length < 8 || input.password.length > 1024)) {
    errors.add('password', 'must be 8 to 1024 characters');
  }
  for (const field of TEXT_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && (value.length > MAX_TEXT || /[\u0000-\u001f]/.test(value))) errors.add(field, `must be at most ${MAX_TEXT} printable characters`);
  }
  if (typeof input.email === 'string' && (input.email.length > 254 || !EMAIL.test(input.email))) errors.add('email', 'must be an email address');
  if (typeof input.phone_number === 'string' && !PHONE.test(input.phone_number)) errors.add('phone_number', 'must be a phone number');
  for (const [key, value] of Object.entries(input.address ?? {})) {
    if (typeof value === 'string' && value.length > MAX_TEXT) errors.add(`address.${key}`, `must be at most ${MAX_TEXT} characters`);
  }
  // A user may not vouch for their own contact details: only a service client sets the verified flags.
  if (principal.kind === 'user') {
    for (const field of VERIFIED_FIELDS) {
      if (input[field] !== undefined && input[field] !== (current?.[field] ?? false)) errors.add(field, 'can be set only by a service client');
    }
  }
  errors.throwIfAny();
}
