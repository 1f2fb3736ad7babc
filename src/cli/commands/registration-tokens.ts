// `gatehouse registration-token create`: an RFC 7591 3 initial access token for POST /register.
// Printed once; only its SHA-256 is stored.
import { parseArgs } from 'node:util';
import { randomToken, sha256 } from '../../crypto/random.js';
import { initialAccessTokensRepository } from '../../storage/initial-access-tokens-repository.js';
import { UsageError, type Command } from '../command.js';

const DEFAULT_TTL_SECONDS = 86_400;

export const registrationTokenCreateCommand: Command = {
  name: 'registration-token create',
  usage: 'registration-token create [--ttl SECONDS]   (default 86400)',
  async run(args, core) {
    const { values } = parseArgs({ args, options: { ttl: { type: 'string' } }, strict: true });
    const ttl = values.ttl === undefined ? DEFAULT_TTL_SECONDS : Number(values.ttl);
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > 31_536_000) throw new UsageError('--ttl must be a number of seconds between 1 and 31536000');
    const token = randomToken(32);
    const expiresAt = new Date(core.clock.now() + ttl * 1000);
    await initialAccessTokensRepository(core.db, core.clock).create(sha256(token), expiresAt);
    return { initial_access_token: token, expires_at: expiresAt.toISOString() };
  },
};
