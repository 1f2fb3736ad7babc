// Small HTTP helpers for set-up and probes (the load itself goes through autocannon).
import { decodeProtectedHeader } from 'jose';

/** RFC 6749 2.3.1: client_id and client_secret are form-urlencoded before Basic encoding. */
export function basicAuth(id: string, secret: string): string {
  const enc = (s: string) => new URLSearchParams([['', s]]).toString().slice(1);
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

export const FORM = 'application/x-www-form-urlencoded';

export const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();

/** POSTs a form and returns the parsed JSON body, failing with the response text when the status differs. */
export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string>, expect = 200): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': FORM, ...headers }, body: form(fields) });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`POST ${url} answered ${res.status}, expected ${expect}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The "same work" guard: an access token must be an ES256 JWT with typ at+jwt on every side. */
export function assertEs256AccessToken(who: string, token: unknown): void {
  if (typeof token !== 'string') throw new Error(`${who}: no access_token in the response`);
  const header = decodeProtectedHeader(token);
  if (header.alg !== 'ES256' || !/^(application\/)?at\+jwt$/i.test(String(header.typ))) {
    throw new Error(`${who}: access token is ${header.alg}/${header.typ}, expected ES256/at+jwt`);
  }
}
