// The login form (inputs `username` and `password`). The failure message is the same for
// an unknown user and a wrong password, so the page does not reveal which accounts exist; the username
// typed is kept so only the password has to be typed again.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { hiddenInput, layout } from './layout.js';
import type { LoginLinks } from '../flow-deps.js';
import { PASSKEY_SCRIPTS } from '../passkeys/passkey-assets.js';
import { passkeySignInSection, type PasskeyAction } from '../passkeys/passkey-fragments.js';

export interface LoginPageInput {
  brand: Brand;
  action: string;
  csrfToken: string;
  clientName: string;
  failed: boolean;
  /** The username of the failed attempt, else the client's login_hint. */
  username?: string;
  /** Offers "Sign in with a passkey" (passwordless, discoverable credentials). */
  passkey?: PasskeyAction;
  /** "Continue with NAME" (federation/login-page-federation.ts); the password may then be optional. */
  federation?: { section: string; passwordOptional: boolean };
  /** "Forgot your password?" and "Create an account" (src/self-service/), when offered. */
  links?: LoginLinks;
}

const LOGIN_FAILED_MESSAGE = 'The username or password is not correct.';

function selfServiceLinks(links: LoginLinks | undefined): string {
  const items = [
    ...(links?.forgotPassword ? [`<a href="${escapeHtml(links.forgotPassword)}">Forgot your password?</a>`] : []),
    ...(links?.signup ? [`<a href="${escapeHtml(links.signup)}">Create an account</a>`] : []),
  ];
  return items.length > 0 ? `\n<p class="self-service">${items.join(' · ')}</p>` : '';
}

export function renderLoginPage({ brand, action, csrfToken, clientName, failed, username, passkey, federation, links }: LoginPageInput): string {
  return layout(
    brand,
    'Sign in',
    `<h1>Sign in</h1>
<p>to continue to <strong>${escapeHtml(clientName)}</strong></p>
${failed ? `<p class="error" role="alert">${LOGIN_FAILED_MESSAGE}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
${hiddenInput('csrf', csrfToken)}
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" required value="${escapeHtml(username ?? '')}"${failed ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password"${federation?.passwordOptional ? '' : ' required'}${failed ? ' autofocus' : ''}>
<button type="submit">Sign in</button>
</form>${selfServiceLinks(links)}${passkey ? `\n${passkeySignInSection(passkey, 'Sign in with a passkey')}` : ''}${federation?.section ? `\n${federation.section}` : ''}`,
    passkey ? { scriptPaths: PASSKEY_SCRIPTS } : {},
  );
}
