// `gatehouse grants list|revoke`, `sessions list|end` and `consents list|revoke`: a user's access as the
// operator sees it, through the rules of /admin/v1/grants, /sessions and /consents
// (src/admin-services/user-access-service.ts): the same lists, the same views, and ends that are audited
// with the CLI as the actor. Revoking a grant ends every token issued under it; revoking a consent also
// ends that user's grants at that client; ending a session signs that browser out.
import { parseArgs } from 'node:util';
import {
  cliActor,
  consentView,
  coreAuditSink,
  endSession,
  findConsent,
  findGrant,
  findSession,
  findUserByIdOrUsername,
  grantView,
  listConsents,
  listGrants,
  listSessions,
  revokeConsent,
  revokeGrant,
  sessionView,
  userAccessServiceDeps,
} from '../../admin-services/index.js';
import type { CliDeps } from '../deps.js';
import type { OwnerFilter, PageAfter } from '../../storage/repositories/user-access-admin-repository.js';
import { UsageError, type Command } from '../command.js';
import { ruleErrorsAsUsage } from '../rule-errors-as-usage.js';

/** Rows per query while a list is walked to its end (the CLI prints the whole list). */
const PAGE = 500;

// A service's rule error is the command's usage error, its message as it is.
const asUsage = ruleErrorsAsUsage({});

async function walk<Row>(list: (page: PageAfter) => Promise<Row[]>, position: (row: Row) => { createdAt: Date; id: string }): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = await list({ limit: PAGE }); ; page = await list({ after: position(page.at(-1)!), limit: PAGE })) {
    rows.push(...page);
    if (page.length < PAGE) return rows;
  }
}

/** --user (id or username) and --client, as the list filter; the service refuses a list without an owner. */
async function ownerOf(core: CliDeps, args: string[], usage: string, owners: readonly ('user' | 'client')[]): Promise<OwnerFilter> {
  const options = Object.fromEntries(owners.map((o) => [o, { type: 'string' as const }]));
  const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals: true });
  if (positionals.length > 0 || owners.every((o) => values[o] === undefined)) throw new UsageError(`usage: gatehouse ${usage}`);
  const user = typeof values.user === 'string' ? await asUsage(() => findUserByIdOrUsername(core, values.user as string)) : undefined;
  return { ...(user ? { userId: user.id } : {}), ...(typeof values.client === 'string' ? { clientId: values.client } : {}) };
}

function oneId(args: string[], usage: string): string {
  const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError(`usage: gatehouse ${usage}`);
  return positionals[0]!;
}

const deps = (core: CliDeps) => userAccessServiceDeps(core, coreAuditSink(core));
const as = () => ({ actor: cliActor() });

/** `NOUN list --user … | --client …`: the whole list, in the admin API's view. */
function listCommand<Row>(
  noun: string,
  usage: string,
  owners: readonly ('user' | 'client')[],
  list: (core: CliDeps, owner: OwnerFilter, page: PageAfter) => Promise<Row[]>,
  position: (row: Row) => { createdAt: Date; id: string },
  view: (row: Row) => Record<string, unknown>,
): Command {
  return {
    name: `${noun} list`,
    usage: `${noun} list ${usage}`,
    async run(args, core) {
      const owner = await ownerOf(core, args, this.usage, owners);
      const rows = await walk((page) => asUsage(() => list(core, owner, page)), position);
      return { [noun]: rows.map(view) };
    },
  };
}

/** `NOUN VERB ID`: one thing ended through the service, audited with the CLI as the actor. */
function endCommand<Row extends { id: string }>(
  noun: string,
  verb: string,
  usage: string,
  find: (core: CliDeps, id: string) => Promise<Row>,
  end: (core: CliDeps, row: Row) => Promise<void>,
  answer: string,
): Command {
  return {
    name: `${noun} ${verb}`,
    usage: `${noun} ${verb} ${usage}`,
    async run(args, core) {
      const row = await asUsage(() => find(core, oneId(args, this.usage)));
      await asUsage(() => end(core, row));
      return { [answer]: row.id };
    },
  };
}

const USER = 'USER_ID_OR_USERNAME';

export const grantsListCommand = listCommand(
  'grants',
  `--user ${USER} | --client CLIENT_ID   (live grants, oldest first)`,
  ['user', 'client'],
  listGrants,
  (g) => ({ createdAt: g.createdAt, id: g.id }),
  grantView,
);
export const grantsRevokeCommand = endCommand(
  'grants',
  'revoke',
  'GRANT_ID   (ends every token issued under the grant)',
  findGrant,
  (core, g) => revokeGrant(deps(core), g, as()),
  'revoked',
);
export const sessionsListCommand = listCommand(
  'sessions',
  `--user ${USER}   (signed-in browser sessions, oldest first)`,
  ['user'],
  listSessions,
  (s) => ({ createdAt: s.createdAt, id: s.id }),
  sessionView,
);
export const sessionsEndCommand = endCommand(
  'sessions',
  'end',
  'SESSION_ID   (that browser must sign in again)',
  findSession,
  (core, s) => endSession(deps(core), s, as()),
  'ended',
);
export const consentsListCommand = listCommand(
  'consents',
  `--user ${USER} | --client CLIENT_ID`,
  ['user', 'client'],
  listConsents,
  (c) => ({ createdAt: c.grantedAt, id: c.id }),
  consentView,
);
export const consentsRevokeCommand = endCommand(
  'consents',
  'revoke',
  "CONSENT_ID   (also ends that user's grants at that client)",
  findConsent,
  (core, c) => revokeConsent(deps(core), c, as()),
  'revoked',
);
