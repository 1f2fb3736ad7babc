// The OIDC profile members of a user representation as both faces answer them (/v1/users and
// /admin/v1/users), defined once so the two cannot drift apart. `address` is not among them: /v1 lists the
// OIDC Core §5.1.1 members, the admin API answers the stored object as it is, so each face declares its own.
import { Type } from '@sinclair/typebox';

export const userProfileProperties = {
  name: Type.Union([Type.String(), Type.Null()]),
  given_name: Type.Union([Type.String(), Type.Null()]),
  family_name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  email_verified: Type.Boolean(),
  phone_number: Type.Union([Type.String(), Type.Null()]),
  phone_number_verified: Type.Boolean(),
};
