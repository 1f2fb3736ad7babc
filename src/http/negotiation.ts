// Proactive content negotiation on `Accept` (RFC 9110 §12.5.1): media ranges with q-values, the most
// specific range deciding each offered type's quality; q=0 means "not acceptable". No acceptable type → 406.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from './errors.js';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  params: number;
}

export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const match = /^([a-z0-9!#$%&'*+.^_`|~-]+)\/([a-z0-9!#$%&'*+.^_`|~-]+)$/.exec(range ?? '');
    if (!match) continue;
    let q = 1;
    let extra = 0;
    for (const p of params) {
      const [name, value] = p.split('=').map((s) => s.trim());
      if (name === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : 0;
      else extra += 1;
    }
    ranges.push({ type: match[1]!, subtype: match[2]!, q, params: extra });
  }
  return ranges;
}

function qualityOf(mediaType: string, ranges: MediaRange[]): number {
  const [type, subtype] = mediaType.toLowerCase().split('/');
  let best: MediaRange | undefined;
  let bestSpecificity = -1;
  for (const r of ranges) {
    const matches = (r.type === '*' || r.type === type) && (r.subtype === '*' || r.subtype === subtype);
    if (!matches) continue;
    const specificity = (r.type === '*' ? 0 : 2) + (r.subtype === '*' ? 0 : 1);
    if (specificity > bestSpecificity) {
      best = r;
      bestSpecificity = specificity;
    }
  }
  return best?.q ?? 0;
}

/** The offered type the client prefers (ties go to the server's order), or undefined for 406. */
export function negotiate(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offered[0];
  let chosen: string | undefined;
  let chosenQ = 0;
  for (const type of offered) {
    const q = qualityOf(type, ranges);
    if (q > chosenQ) {
      chosen = type;
      chosenQ = q;
    }
  }
  return chosen;
}

/** Chooses the representation for this request, sets `Vary: Accept`, and throws 406 when none fits. */
export function chooseMediaType(request: FastifyRequest, reply: FastifyReply, offered: readonly string[]): string {
  addVary(reply, 'Accept');
  const chosen = negotiate(request.headers.accept, offered);
  if (!chosen) {
    throw new ProblemError('not-acceptable', `This resource is available as: ${offered.join(', ')}.`);
  }
  return chosen;
}

const JSON_MEDIA_TYPES = ['application/json'] as const;

/** Hook for JSON-only resources: 406 unless the client accepts application/json. */
export async function acceptJsonOnly(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  chooseMediaType(request, reply, JSON_MEDIA_TYPES);
}

/** Adds a field to `Vary` once (RFC 9110 §12.5.5), keeping what other layers (compression) added. */
export function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  const fields = String(current ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (fields.includes('*') || fields.some((f) => f.toLowerCase() === field.toLowerCase())) return;
  reply.header('vary', [...fields, field].join(', '));
}
