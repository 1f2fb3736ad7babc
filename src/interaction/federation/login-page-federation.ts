// What the login page adds for federation, kept here so the page itself only places it: the "Continue with
// NAME" section, whether the password may be left empty (an e-mail of a claimed domain goes upstream
// without one), and the two ways the choice is skipped — login_hint=idp:SLUG (once per interaction) and an
// e-mail typed in the username field whose domain an offered provider claims.
import type { FastifyReply } from 'fastify';
import type { AuthorizationRequest } from '../../oauth/authorize/authorization-request.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { FlowDeps } from '../flow-deps.js';
import { cspSource } from '../pages/page-headers.js';
import { continueWithSection } from './federation-pages.js';
import { IDP_LOGIN_HINT_PREFIX, offeredProviders, providerForEmail, providerForLoginHint } from './offered-providers.js';
import { sendUpstream } from './start-upstream.js';

export interface LoginPageFederation {
  /** HTML after the password form ('' when nothing is offered). */
  section: string;
  /** Some offered provider claims a domain: the password field is not `required`. */
  passwordOptional: boolean;
  /**
   * The page's headers with every offered provider's authorization endpoint in CSP form-action: the
   * buttons' POST (and the username form's, for a claimed domain) ends in a 303 there, and browsers apply
   * form-action to the redirects after a form submission (page-headers.ts).
   */
  headers<T extends { 'content-security-policy': string }>(headers: T): T;
  /** The login_hint named an offered provider (and the interaction has not been there yet): go there. */
  hinted?: (reply: FastifyReply) => Promise<FastifyReply>;
}

export async function loginPageFederation(
  interaction: { id: string; request: AuthorizationRequest },
  client: Pick<Client, 'identityProviders'>,
  form: { action: string; csrfToken: string },
  deps: FlowDeps,
): Promise<LoginPageFederation> {
  const offered = await offeredProviders(client, deps.federation);
  const section = continueWithSection({ ...form, providers: offered });
  const passwordOptional = offered.some((p) => p.domains.length > 0);
  const sources = [...new Set(offered.map((p) => cspSource(p.authorizationEndpoint)).filter((s): s is string => s !== undefined))];
  const headers = <T extends { 'content-security-policy': string }>(h: T): T =>
    sources.length === 0
      ? h
      : { ...h, 'content-security-policy': h['content-security-policy'].replace("form-action 'self'", `form-action 'self' ${sources.join(' ')}`) };
  const hinted = providerForLoginHint(offered, interaction.request.loginHint);
  if (!hinted || (await deps.federation.legs.peek(interaction.id)) !== undefined) return { section, passwordOptional, headers };
  return { section, passwordOptional, headers, hinted: (reply) => sendUpstream(reply, interaction, hinted, {}, deps) };
}

/** The username field's login hint, unless it names a provider (not a username to show). */
export const usernameHint = (hint: string | undefined): string | undefined => (hint?.startsWith(IDP_LOGIN_HINT_PREFIX) ? undefined : hint);

/** Home-realm discovery at the login form's submission: the e-mail typed belongs to a provider's domain. */
export async function upstreamForUsername(
  interaction: { id: string; request: AuthorizationRequest },
  client: Pick<Client, 'identityProviders'>,
  typed: string,
  deps: FlowDeps,
) {
  if (!typed.includes('@')) return undefined;
  const provider = providerForEmail(await offeredProviders(client, deps.federation), typed);
  return provider && ((reply: FastifyReply) => sendUpstream(reply, interaction, provider, { loginHint: typed.trim() }, deps));
}
