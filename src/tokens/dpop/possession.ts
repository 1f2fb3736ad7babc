// RFC 9449 §7 at a protected resource (the API, /userinfo): the resource-server kit's check
// (packages/resource-server-kit/src/dpop/possession.ts), one implementation for Gatehouse and every API using the kit.
export {
  authorizationCredentials,
  dpopFailureHeaders,
  dpopRefusalLog as dpopRefusal,
  possessionFailure,
  type PossessionFailure,
  type PresentationScheme,
  type PresentedRequest,
  type PresentedToken,
} from '@gatehouse/resource-server';
