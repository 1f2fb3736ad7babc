// Which user attributes a registered scope releases, and into which tokens (docs/resource-servers.md,
// "Claims"). Shared by `gatehouse resource-servers create --claim` and the admin API. A mapping names a scope
// of the same resource server and an attribute that may become a claim: never a reserved claim or a
// standard OpenID Connect claim (src/oauth/resources/claims.ts, which ignores such names again at issuance).
import { claimNameProblem, type ClaimTarget } from '../oauth/resources/claims.js';
import type { ResourceScope, ScopeClaims } from '../storage/repositories/resource-servers-repository.js';
import { AdminRuleError } from './rule-error.js';

export interface ClaimMapping {
  scope: string;
  attribute: string;
  targets: ClaimTarget[];
}

/** Attributes one scope may release. */
const MAX_CLAIMS_PER_SCOPE = 20;
const TARGETS: readonly ClaimTarget[] = ['access_token', 'id_token'];

/** `SCOPE@ATTRIBUTE=access_token,id_token` (neither a scope nor an attribute name contains `@` or `=`). */
export function parseClaimMapping(value: string): ClaimMapping {
  const match = /^([^@=]+)@([^@=]+)=([^@=]+)$/.exec(value);
  if (!match) throw new AdminRuleError('invalid', `expected SCOPE@ATTRIBUTE=access_token,id_token, got ${JSON.stringify(value.slice(0, 100))}`, 'claim');
  const targets = match[3]!.split(',').map((t) => t.trim());
  for (const target of targets) {
    if (!(TARGETS as readonly string[]).includes(target))
      throw new AdminRuleError('invalid', `${JSON.stringify(target.slice(0, 64))} is not a token: access_token or id_token`, 'claim');
  }
  return { scope: match[1]!, attribute: match[2]!, targets: [...new Set(targets as ClaimTarget[])] };
}

/**
 * The scopes with the mappings added; each mapping must name one of these scopes and a claimable attribute.
 * `field` names the input in errors: `claim` for the CLI's --claim, `scopes` for an admin API document.
 */
export function withClaimMappings(scopes: readonly ResourceScope[], mappings: readonly ClaimMapping[], field = 'claim'): ResourceScope[] {
  const result = scopes.map((s) => ({ ...s, claims: { ...s.claims } }));
  for (const mapping of mappings) {
    const scope = result.find((s) => s.name === mapping.scope);
    if (!scope) throw new AdminRuleError('invalid', `${JSON.stringify(mapping.scope.slice(0, 64))} is not one of this resource server's scopes`, field);
    const problem = claimNameProblem(mapping.attribute);
    if (problem) throw new AdminRuleError('invalid', `${JSON.stringify(mapping.attribute.slice(0, 64))} ${problem}`, field);
    for (const target of mapping.targets) {
      const list = scope.claims[target] ?? [];
      if (list.includes(mapping.attribute)) throw new AdminRuleError('invalid', `${mapping.scope}@${mapping.attribute} is mapped into ${target} twice`, field);
      if (list.length >= MAX_CLAIMS_PER_SCOPE)
        throw new AdminRuleError('invalid', `${mapping.scope} releases at most ${MAX_CLAIMS_PER_SCOPE} attributes per token`, field);
      scope.claims[target] = [...list, mapping.attribute];
    }
  }
  return result;
}

/**
 * One scope's mapping as a document gives it (`{"access_token": [...], "id_token": [...]}`, the stored form),
 * checked by the same rules as `--claim`: claimable names, no name twice in a token, at most
 * MAX_CLAIMS_PER_SCOPE per token. Empty lists are dropped, so the stored form is the same either way.
 */
export function checkedScopeClaims(scope: string, claims: ScopeClaims, field: string): ScopeClaims {
  const mappings = TARGETS.flatMap((target) => (claims[target] ?? []).map((attribute) => ({ scope, attribute, targets: [target] })));
  return withClaimMappings([{ name: scope, description: '', claims: {} }], mappings, field)[0]!.claims;
}
