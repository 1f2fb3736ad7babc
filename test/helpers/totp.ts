// An RFC 6238 / RFC 4226 code generator for tests, written from the RFCs with node:crypto's HMAC, so the
// server's TOTP (the otpauth library) is checked against an implementation it shares no code with.
import { createHmac } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Decode(text: string): Buffer {
  let bits = '';
  for (const c of text.replace(/=+$/, '').toUpperCase()) bits += BASE32.indexOf(c).toString(2).padStart(5, '0');
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((b) => parseInt(b, 2)));
}

/** RFC 4226 5.3 dynamic truncation of HMAC-SHA-1(key, counter), `digits` long. */
export function hotp(key: Buffer, counter: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return binary.toString().padStart(digits, '0');
}

/** RFC 6238 4.2: T = floor(unix time / 30). */
export const totpAt = (secretBase32: string, epochMs: number, digits = 6): string => hotp(base32Decode(secretBase32), Math.floor(epochMs / 1000 / 30), digits);

/** The otpauth:// URI's secret parameter. */
export const secretOfUri = (uri: string): string => new URL(uri).searchParams.get('secret')!;
