// The `sid` claim (OpenID Connect Front-/Back-Channel Logout): an identifier of the browser session a
// sign-in happened in, the same in every id_token of that session and in the logout token that ends it.
// Derived from the session's stored hash (itself the hash of the cookie's value), so it reveals nothing
// that finds the session: neither the cookie nor the database key.
import { sha256 } from '../crypto/random.js';

export const sidOf = (sessionHash: string): string => sha256(`sid:${sessionHash}`);
