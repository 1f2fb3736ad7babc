// A software passkey for tests without a browser: a P-256 key registered straight in the passkeys table
// and assertions signed as an authenticator would (WebAuthn 6.1 authenticator data, 7.2 client data, ES256
// over authData || SHA-256(clientDataJSON)). The real ceremonies in Chromium are in test/e2e/passkeys-*.
// Not a test file.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { Clock } from '../../src/clock.js';
import type { Db } from '../../src/storage/driver/database.js';
import { passkeysRepository } from '../../src/storage/repositories/passkeys-repository.js';

const b64u = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** The COSE_Key (RFC 9053) of a P-256 public key, CBOR-encoded: {1: 2, 3: -7, -1: 1, -2: x, -3: y}. */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  return Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
}

export interface SoftPasskey {
  credentialId: string;
  /** A signed assertion answering `challenge` for the server at `issuer` (the JSON a browser posts). */
  assert(challenge: string, issuer: string): Record<string, unknown>;
}

/** A new key, not yet registered anywhere: `register` answers a registration ceremony with it. */
export function newSoftPasskey(userId: string): SoftPasskey & { cose: Buffer; register(challenge: string, issuer: string): Record<string, unknown> } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialId = b64u(sha256(`${userId}:${Math.random()}`).subarray(0, 16));
  const cose = coseKey(publicKey);
  let counter = 0;
  const cbor = (text: string) => Buffer.concat([Buffer.from([0x60 + text.length]), Buffer.from(text)]);
  return {
    cose,
    register(challenge, issuer) {
      const url = new URL(issuer);
      const id = Buffer.from(credentialId, 'base64url');
      // Flags: user present, user verified, attested credential data (0x45); aaguid zeros; attestation "none".
      const authData = Buffer.concat([
        sha256(url.hostname),
        Buffer.from([0x45, 0, 0, 0, 0]),
        Buffer.alloc(16),
        Buffer.from([id.length >> 8, id.length & 255]),
        id,
        cose,
      ]);
      const attestation = Buffer.concat([
        Buffer.from([0xa3]),
        cbor('fmt'),
        cbor('none'),
        cbor('attStmt'),
        Buffer.from([0xa0]),
        cbor('authData'),
        Buffer.from([0x59, authData.length >> 8, authData.length & 255]),
        authData,
      ]);
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge, origin: url.origin, crossOrigin: false }));
      return {
        id: credentialId,
        rawId: credentialId,
        type: 'public-key',
        response: { clientDataJSON: b64u(clientData), attestationObject: b64u(attestation), transports: ['internal'] },
        clientExtensionResults: {},
      };
    },
    ...signer(credentialId, userId, privateKey, () => ++counter),
  };
}

export async function addSoftPasskey(db: Db, clock: Clock, userId: string): Promise<SoftPasskey> {
  const key = newSoftPasskey(userId);
  await passkeysRepository(db, clock).add({
    credentialId: key.credentialId,
    userId,
    publicKey: b64u(key.cose),
    signCount: 0,
    transports: ['internal'],
    deviceType: 'singleDevice',
    name: 'Soft key',
  });
  return key;
}

function signer(credentialId: string, userId: string, privateKey: KeyObject, next: () => number): SoftPasskey {
  return {
    credentialId,
    assert(challenge, issuer) {
      const counter = next();
      const url = new URL(issuer);
      // Flags: user present (0x01) and user verified (0x04).
      const authData = Buffer.concat([
        sha256(url.hostname),
        Buffer.from([0x05]),
        Buffer.from([counter >>> 24, (counter >>> 16) & 255, (counter >>> 8) & 255, counter & 255]),
      ]);
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: url.origin, crossOrigin: false }));
      const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), privateKey);
      return {
        id: credentialId,
        rawId: credentialId,
        type: 'public-key',
        response: { authenticatorData: b64u(authData), clientDataJSON: b64u(clientData), signature: b64u(signature), userHandle: b64u(userId) },
        clientExtensionResults: {},
      };
    },
  };
}
