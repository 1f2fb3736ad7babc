// `gatehouse audit verify [--from CHECKPOINT]` (docs/audit-log.md): proves the audit log complete and unmodified
// from the chain's anchor — or from a checkpoint, given by its position or as the JWS itself (a copy kept
// outside the database is the stronger proof) — to its head, or names the first broken link and exits 1.
import { parseArgs } from 'node:util';
import { verifyAuditChain } from '../../audit/verify.js';
import { CommandFailure, UsageError, type Command } from '../command.js';

export const auditVerifyCommand: Command = {
  name: 'audit verify',
  usage: 'audit verify [--from CHECKPOINT]   (a checkpoint position, or its JWS from /.well-known/audit-checkpoints)',
  async run(args, core) {
    const { values } = parseArgs({ args, options: { from: { type: 'string' } }, strict: true });
    const from = values.from?.trim();
    if (from !== undefined && !/^\d+$/.test(from) && !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(from)) {
      throw new UsageError(`--from must be a checkpoint position (a number) or a checkpoint JWS (got ${JSON.stringify(from.slice(0, 40))})`);
    }
    const verdict = await verifyAuditChain(core.store, { issuer: core.config.ISSUER, ...(from !== undefined ? { from } : {}) });
    if (!verdict.ok) throw new CommandFailure(`audit chain broken: ${verdict.broken?.message ?? 'unknown'}`, verdict);
    return verdict;
  },
};
