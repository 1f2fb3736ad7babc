// `gatehouse grants list|revoke`, `sessions list|end` and `consents list|revoke`: a user's access as the
// operator sees it, through the rules of /admin/v1/grants, /sessions and /consents
// (src/admin-services/user-access-service.ts): the same lists, the same views, and ends that are audited
// with the CLI as the actor. Revoking a grant ends every token issued under it; revoking a consent also
// ends that user's grants at that client; ending a session signs that browser out.
import { parseArgs } from 'node:util';
import {
  AdminRuleError,
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
import type { Core } from '../../core.js';
import type { OwnerFilter, PageAfter } from '../../storage/user-access-admin-repository.js';
import { UsageError, type Command } from '../command.js';

/** Rows per query while a list is walked to its end (the CLI prints the whole list). */
const PAGE = 500;

async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AdminRuleError) throw new UsageError(error.message);
    throw error;
  }
}

async function walk<Row>(list: (page: PageAfter) => Promise<Row[]>, position: (row: Row) => { createdAt: Date; id: string }): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = await list({ limit: PAGE }); ; page = await list({ after: position(page.at(-1)!), limit: PAGE })) {
    rows.push(...page);
    if (page.length < PAGE) return rows;
  }
}

/** --user (id or username) and --client, as the list filter; the service refuses a list without an owner. */
async function ownerOf(core: Core, args: string[], usage: string, owners: readonly ('user' | 'client')[]): Promise<OwnerFilter> {
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

const deps = (core: Core) => userAccessServiceDeps(core, coreAuditSink(core));
const as = () => ({ actor: cliActor() });

export const grantsListCommand: Command = {
  name: 'grants list',
  usage: 'grants list --user USER_ID_OR_USERNAME | --client CLIENT_ID   (live grants, oldest first)',
  async run(args, core) {
    const owner = await ownerOf(core, args, this.usage, ['user', 'client']);
    const grants = await walk((page) => asUsage(() => listGrants(core, owner, page)), (g) => ({ createdAt: g.createdAt, id: g.id }));
    return { grants: grants.map(grantView) };
  },
};

export const grantsRevokeCommand: Command = {
  name: 'grants revoke',
  usage: 'grants revoke GRANT_ID   (ends every token issued under the grant)',
  async run(args, core) {
    const grant = await asUsage(() => findGrant(core, oneId(args, this.usage)));
    await asUsage(() => revokeGrant(deps(core), grant, as()));
    return { revoked: grant.id };
  },
};

export const sessionsListCommand: Command = {
  name: 'sessions list',
  usage: 'sessions list --user USER_ID_OR_USERNAME   (signed-in browser sessions, oldest first)',
  async run(args, core) {
    const owner = await ownerOf(core, args, this.usage, ['user']);
    const sessions = await walk((page) => asUsage(() => listSessions(core, owner, page)), (s) => ({ createdAt: s.createdAt, id: s.id }));
    return { sessions: sessions.map(sessionView) };
  },
};

export const sessionsEndCommand: Command = {
  name: 'sessions end',
  usage: 'sessions end SESSION_ID   (that browser must sign in again)',
  async run(args, core) {
    const session = await asUsage(() => findSession(core, oneId(args, this.usage)));
    await asUsage(() => endSession(deps(core), session, as()));
    return { ended: session.id };
  },
};

export const consentsListCommand: Command = {
  name: 'consents list',
  usage: 'consents list --user USER_ID_OR_USERNAME | --client CLIENT_ID',
  async run(args, core) {
    const owner = await ownerOf(core, args, this.usage, ['user', 'client']);
    const consents = await walk((page) => asUsage(() => listConsents(core, owner, page)), (c) => ({ createdAt: c.grantedAt, id: c.id }));
    return { consents: consents.map(consentView) };
  },
};

export const consentsRevokeCommand: Command = {
  name: 'consents revoke',
  usage: "consents revoke CONSENT_ID   (also ends that user's grants at that client)",
  async run(args, core) {
    const consent = await asUsage(() => findConsent(core, oneId(args, this.usage)));
    await asUsage(() => revokeConsent(deps(core), consent, as()));
    return { revoked: consent.id };
  },
};
