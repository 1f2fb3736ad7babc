// `gatehouse registration-token create`: an RFC 7591 3 initial access token for POST /register.
// Printed once; only its SHA-256 is stored. By default it registers one client with the strict policy
// (user-facing grants, OIDC scopes); --allow-grant-types and --allow-scope widen what that client may hold.
import { initialAccessTokenId } from '../../oauth/register/access.js';
import { parseArgs } from 'node:util';
import { randomToken, sha256 } from '../../crypto/random.js';
import { GRANT_TYPES } from '../../storage/repositories/clients-repository.js';
import { parseScope } from '../../scopes.js';
import type { ResourceCatalogue } from '../../oauth/resources/registry.js';
import { UsageError, type Command } from '../command.js';

const DEFAULT_TTL_SECONDS = 86_400;
const MAX_USES = 10_000;

function boundedInteger(raw: string | undefined, fallback: number, min: number, max: number, name: string): number {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new UsageError(`${name} must be a whole number between ${min} and ${max}`);
  return value;
}

function grantTypes(raw: string | undefined): string[] {
  const list = [
    ...new Set(
      (raw ?? '')
        .split(',')
        .map((g) => g.trim())
        .filter(Boolean),
    ),
  ];
  for (const g of list) if (!(GRANT_TYPES as readonly string[]).includes(g)) throw new UsageError(`--allow-grant-types: unknown grant type ${g}`);
  return list;
}

function scopes(raw: string[] | undefined, catalogue: ResourceCatalogue): string[] {
  const list = [...new Set((raw ?? []).flatMap((s) => parseScope(s)))];
  for (const s of list) {
    if (!catalogue.isKnown(s)) throw new UsageError(`--allow-scope: unknown scope ${s}`);
    if (catalogue.isOperatorOnly(s))
      throw new UsageError(`--allow-scope: ${s} is operator-only; give it with \`clients create --scope\`, never through /register`);
  }
  return list;
}

export const registrationTokenCreateCommand: Command = {
  name: 'registration-token create',
  usage:
    'registration-token create [--allow-grant-types client_credentials,...] [--allow-scope "orders:read ..."] [--uses N (default 1)] [--ttl SECONDS (default 86400)]',
  async run(args, core) {
    const { values } = parseArgs({
      args,
      options: {
        ttl: { type: 'string' },
        uses: { type: 'string' },
        'allow-grant-types': { type: 'string' },
        'allow-scope': { type: 'string', multiple: true },
      },
      strict: true,
    });
    const ttl = boundedInteger(values.ttl, DEFAULT_TTL_SECONDS, 1, 31_536_000, '--ttl');
    const uses = boundedInteger(values.uses, 1, 1, MAX_USES, '--uses');
    const allowedGrantTypes = grantTypes(values['allow-grant-types']);
    const allowedScopes = scopes(values['allow-scope'], await core.resources.catalogue());
    const token = randomToken(32);
    const expiresAt = new Date(core.clock.now() + ttl * 1000);
    const tokenHash = sha256(token);
    await core.store.initialAccessTokens.create({ tokenHash, expiresAt, uses, allowedGrantTypes, allowedScopes });
    return {
      initial_access_token: token,
      // What the audit log calls it (client.registered's details.initial_access_token_id).
      id: initialAccessTokenId(tokenHash),
      expires_at: expiresAt.toISOString(),
      uses,
      allowed_grant_types: allowedGrantTypes,
      allowed_scope: allowedScopes.join(' '),
    };
  },
};
