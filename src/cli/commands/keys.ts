import { parseArgs } from 'node:util';
import { SIGNING_ALGS, type SigningAlg } from '../../crypto/keys.js';
import { UsageError, type Command } from '../command.js';
import { didYouMean } from '../../suggest.js';
import { cliActor, listSigningKeys, rotateSigningKeys, signingKeyServiceDeps } from '../../admin-services/index.js';

export const keysListCommand: Command = {
  name: 'keys list',
  usage: 'keys list',
  async run(_args, core) {
    return { keys: await listSigningKeys(core) };
  },
};

export const keysRotateCommand: Command = {
  name: 'keys rotate',
  usage: 'keys rotate [--alg ES256|RS256]   (default: both)',
  async run(args, core) {
    const { values } = parseArgs({ args, options: { alg: { type: 'string' } }, strict: true });
    if (values.alg && !SIGNING_ALGS.includes(values.alg as SigningAlg)) {
      throw new UsageError(`--alg must be one of ${SIGNING_ALGS.join(', ')} (got ${JSON.stringify(values.alg)})${didYouMean(values.alg, SIGNING_ALGS)}`);
    }
    const algs = values.alg ? [values.alg as SigningAlg] : SIGNING_ALGS;
    // The same service as POST /admin/v1/signing-keys/rotations: the keys and their audit events commit together.
    return { rotated: await rotateSigningKeys(signingKeyServiceDeps(core, core.audit), algs, { actor: cliActor() }) };
  },
};
