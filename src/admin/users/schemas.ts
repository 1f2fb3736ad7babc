// /admin/v1/users schemas: one source for input shape (failures → 400), response serialisation (which
// keeps the password and its hash out of every answer) and the OpenAPI document. Value rules (username,
// password length, verified flags, attribute names and limits) are the service's (→ 422).
import { Type, type Static } from '@sinclair/typebox';
import { userProfileProperties } from '../../resource-server/user-profile-schema.js';

const Text = (description: string, maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()], { description });
const AddressPart = Type.Optional(Type.String({ maxLength: 200 }));

const AddressSchema = Type.Union(
  [
    Type.Object(
      { formatted: AddressPart, street_address: AddressPart, locality: AddressPart, region: AddressPart, postal_code: AddressPart, country: AddressPart },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'OIDC Core 5.1.1 address claim' },
);

const profile = {
  name: Type.Optional(Text('Full name', 200)),
  given_name: Type.Optional(Text('Given name', 200)),
  family_name: Type.Optional(Text('Family name', 200)),
  email: Type.Optional(Text('E-mail address', 254)),
  phone_number: Type.Optional(Text('Phone number', 50)),
  address: Type.Optional(AddressSchema),
  email_verified: Type.Optional(Type.Boolean({ description: 'Omitted: stays true only while the e-mail address is unchanged' })),
  phone_number_verified: Type.Optional(Type.Boolean({ description: 'Omitted: stays true only while the phone number is unchanged' })),
};

/** Custom attributes: name → any JSON value (the rules are src/admin-services/user-attributes.ts, → 422). */
const Attributes = (description: string) =>
  Type.Unsafe<Record<string, unknown>>(Type.Object({}, { additionalProperties: Type.Unknown({ description: 'Any JSON value but null' }), description }));

const attributesInput = Type.Optional(
  Attributes(
    'Custom attributes that registered scopes map into tokens (docs/resource-servers.md, "Claims"); the whole set: absent in a PUT means none, a merge patch sets, replaces or (null) removes single ones',
  ),
);

const username = Type.String({ description: '1-64 characters of letters, digits and . _ @ + -; unique, case-insensitively', maxLength: 200 });

/** PUT: every writable member (absent ones become null). */
export const UserInputSchema = Type.Object({ username, ...profile, attributes: attributesInput }, { additionalProperties: false });
export type UserInputBody = Static<typeof UserInputSchema>;
export const WRITABLE_FIELDS = Object.keys(UserInputSchema.properties);

export const CreateUserSchema = Type.Object(
  {
    username,
    password: Type.String({ description: 'At least 8 characters; never shown again, never logged', maxLength: 4096 }),
    ...profile,
    attributes: attributesInput,
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserSchema>;

export const SetPasswordSchema = Type.Object(
  { password: Type.String({ description: 'At least 8 characters', maxLength: 4096 }) },
  { additionalProperties: false },
);

export const UserSchema = Type.Object({
  id: Type.String({ description: 'The OIDC `sub`' }),
  username: Type.String(),
  ...userProfileProperties,
  address: Type.Union([Type.Object({}, { additionalProperties: Type.String() }), Type.Null()]),
  has_second_factor: Type.Boolean({ description: 'Whether sign-ins ask for a second factor' }),
  second_factors: Type.Array(Type.String(), { description: 'The kinds set up: totp, recovery_codes, passkey' }),
  passkeys: Type.Array(
    Type.Object({
      name: Type.String({ description: 'The name the user gave it' }),
      kind: Type.String({ description: 'synced (backed up across devices) or device-bound' }),
      created_at: Type.String({ format: 'date-time' }),
      last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    }),
    { description: 'Every passkey of the user, oldest first (never its credential id or key)' },
  ),
  attributes: Attributes('Custom attributes (name → JSON value); {} when none'),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
