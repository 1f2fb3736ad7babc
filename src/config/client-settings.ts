// Settings of client registrations: dynamic registration, and fetching the key sets of clients registered
// with a jwks_uri (docs/security/registration-and-client-keys.md).
import { int, bool, type Setting } from './setting.js';

export const clientSettings = {
  REGISTRATION_ENABLED: {
    doc: 'Serve dynamic client registration (RFC 7591/7592) at /register, guarded by initial access tokens.',
    expects: 'true or false',
    parse: bool,
    fallback: true,
  },
  CLIENT_JWKS_FETCH_TIMEOUT: {
    doc: "Milliseconds a fetch of a client's jwks_uri (private_key_jwt) may take in all, from name resolution to the last byte.",
    expects: 'an integer number of milliseconds between 100 and 30000',
    parse: int(100, 30_000),
    fallback: 3_000,
  },
  CLIENT_JWKS_MAX_BYTES: {
    doc: "Largest key set document accepted from a client's jwks_uri, in bytes; a larger one is refused while it downloads.",
    expects: 'an integer number of bytes between 1024 and 1048576',
    parse: int(1024, 1_048_576),
    fallback: 65_536,
  },
  CLIENT_JWKS_CACHE_SIZE: {
    doc: "How many clients' remote key sets an instance keeps in memory; the least recently used goes first.",
    expects: 'an integer between 1 and 100000',
    parse: int(1, 100_000),
    fallback: 1_000,
  },
} satisfies Record<string, Setting<unknown>>;
