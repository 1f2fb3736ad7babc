// Starting a device authorization (RFC 8628 3.1-3.2): a 256-bit device_code for the client to poll with and
// a short user code for the person, both stored only as SHA-256 hashes, with the grant id chosen up front (as
// for authorization codes) and the lifetime and polling interval of the configuration.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { randomToken, sha256 } from '../../crypto/random.js';
import type { DeviceAuthorizationsRepository } from '../../storage/repositories/device-authorizations-repository.js';
import { newUserCode } from './user-code.js';

/** The path of the page where the user enters the code (served by the interaction face). */
export const DEVICE_PAGE_PATH = '/device';
/** 256 random bits, like authorization codes and refresh tokens. */
const DEVICE_CODE_BYTES = 32;
/** A user code colliding with a stored one is drawn again; with 2.56e10 codes, twice in a row is already absurd. */
const MAX_DRAWS = 5;

export interface StartedDeviceAuthorization {
  deviceCode: string;
  /** Normalized (no dash). */
  userCode: string;
  expiresIn: number;
  interval: number;
}

export function deviceAuthorizationStarter(deps: {
  repository: Pick<DeviceAuthorizationsRepository, 'insert'>;
  clock: Clock;
  config: Pick<Config, 'DEVICE_CODE_TTL' | 'DEVICE_POLL_INTERVAL'>;
}) {
  const { repository, clock, config } = deps;
  return async (input: { clientId: string; scope: string[]; resource: string | null }): Promise<StartedDeviceAuthorization> => {
    const deviceCode = randomToken(DEVICE_CODE_BYTES);
    const expiresAt = new Date(clock.now() + config.DEVICE_CODE_TTL * 1000);
    for (let draw = 0; draw < MAX_DRAWS; draw++) {
      const userCode = newUserCode();
      const stored = await repository.insert({
        deviceCodeHash: sha256(deviceCode),
        userCodeHash: sha256(userCode),
        grantId: randomUUID(),
        clientId: input.clientId,
        scope: input.scope,
        resource: input.resource,
        intervalSeconds: config.DEVICE_POLL_INTERVAL,
        expiresAt,
      });
      if (stored) return { deviceCode, userCode, expiresIn: config.DEVICE_CODE_TTL, interval: config.DEVICE_POLL_INTERVAL };
    }
    throw new Error('no free user code after several draws');
  };
}
