// The /v1/users schemas: one source for input validation, response serialisation (which also keeps the
// password hash and anything unlisted out of every response) and the OpenAPI document. Schemas check
// shape and JSON types (failures → 400); value rules live in validate.ts (failures → 422).
import { Type, type Static } from '@sinclair/typebox';
import { userProfileProperties } from '../../resource-server/user-profile-schema.js';

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const AddressSchema = Type.Object(
  {
    formatted: Type.Optional(Type.String()),
    street_address: Type.Optional(Type.String()),
    locality: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    postal_code: Type.Optional(Type.String()),
    country: Type.Optional(Type.String()),
  },
  { description: 'OIDC Core §5.1.1 address' },
);

const profileFields = {
  name: Type.Optional(NullableString('Full name')),
  given_name: Type.Optional(NullableString('Given name')),
  family_name: Type.Optional(NullableString('Family name')),
  email: Type.Optional(NullableString('Email address')),
  email_verified: Type.Optional(Type.Boolean({ description: 'Set to true only by an operator; changing email clears it' })),
  phone_number: Type.Optional(NullableString('Phone number, E.164 recommended')),
  phone_number_verified: Type.Optional(Type.Boolean({ description: 'Set to true only by an operator; changing phone_number clears it' })),
  address: Type.Optional(Type.Union([AddressSchema, Type.Null()])),
};

export const CreateUserSchema = Type.Object({
  username: Type.String({ description: '1-64 characters of letters, digits and . _ @ + -' }),
  password: Type.String({ description: 'Write-only; at least 8 characters', writeOnly: true }),
  ...profileFields,
});

export const ReplaceUserSchema = Type.Object(
  {
    username: Type.String(),
    password: Type.Optional(
      Type.String({ description: 'Write-only; omitted keeps the current password. Only the user changes it, with current_password', writeOnly: true }),
    ),
    current_password: Type.Optional(
      Type.String({ description: "Write-only; required with password. A change ends the user's sessions and refresh tokens", writeOnly: true }),
    ),
    ...profileFields,
  },
  { description: 'Full replacement: omitted profile fields become null (or false).' },
);

export const UserSchema = Type.Object(
  {
    id: Type.String({ readOnly: true }),
    username: Type.String(),
    ...userProfileProperties,
    address: Type.Union([AddressSchema, Type.Null()]),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
    _links: Type.Object({ self: Type.Object({ href: Type.String() }) }, { readOnly: true }),
  },
  { description: 'A user account (credentials are write-only and never returned).' },
);

export const UserParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const MergePatchSchema = Type.Unknown({
  description: 'RFC 7396 JSON Merge Patch of the writable User fields; `null` removes (resets) a field.',
});

export type CreateUserBody = Static<typeof CreateUserSchema>;
export type ReplaceUserBody = Static<typeof ReplaceUserSchema>;
export type UserRepresentation = Static<typeof UserSchema>;
