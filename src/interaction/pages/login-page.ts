// The login form (DESIGN.md §2: inputs `username` and `password`). The failure message is the same for
// an unknown user and a wrong password, so the page does not reveal which accounts exist.
import { escapeHtml } from '../../http/html.js';
import { hiddenInput, layout } from './layout.js';

export interface LoginPageInput {
  action: string;
  csrfToken: string;
  clientName: string;
  failed: boolean;
  loginHint?: string;
}

export const LOGIN_FAILED_MESSAGE = 'The username or password is not correct.';

export function renderLoginPage({ action, csrfToken, clientName, failed, loginHint }: LoginPageInput): string {
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
<p>to continue to <strong>${escapeHtml(clientName)}</strong></p>
${failed ? `<p class="error" role="alert">${LOGIN_FAILED_MESSAGE}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
${hiddenInput('csrf', csrfToken)}
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" required value="${escapeHtml(loginHint ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}
