// TOTP (RFC 6238) with the parameters every authenticator app understands: HMAC-SHA-1, 6 digits, 30-second
// steps, and one step of drift either way (RFC 6238 5.2). The arithmetic is the `otpauth` library's; this
// module fixes the parameters, takes "now" from the injected clock, and says which time step a code matched,
// so the caller can refuse that step a second time (replay).
import { Secret, TOTP } from 'otpauth';
import type { Clock } from '../../clock.js';

const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
const WINDOW = 1;
/** 160 bits: the HMAC-SHA-1 key length RFC 4226 4 recommends. */
const SECRET_BYTES = 20;

const totp = (secretBase32: string, issuer = '', label = '') =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });

export const newTotpSecret = (): string => new Secret({ size: SECRET_BYTES }).base32;

/** The Key Uri Format authenticator apps read from the QR code: otpauth://totp/ISSUER:LABEL?secret=… */
export const totpUri = (secretBase32: string, issuer: string, label: string): string => totp(secretBase32, issuer, label).toString();

/** The time step the code belongs to (within ±1 step of now), or undefined when it matches none. */
export function matchTotp(secretBase32: string, code: string, clock: Clock): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const timestamp = clock.now();
  const delta = totp(secretBase32).validate({ token, timestamp, window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(timestamp / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** The QR code of the URI as an SVG document, rendered here (no third-party service sees the secret). */
/** qrcode is loaded on the first enrollment, not at start-up: most processes never draw a QR code. */
export async function qrSvg(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
