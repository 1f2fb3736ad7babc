// RP-initiated logout without a trustworthy id_token_hint asks the user first (OIDC RP-Initiated Logout 1.0 §2).
import { hiddenInput, layout } from './layout.js';

export function renderLogoutConfirmPage({ csrfToken }: { csrfToken: string }): string {
  return layout(
    'Sign out',
    `<h1>Sign out?</h1>
<p>You will be signed out of Gatehouse in this browser.</p>
<form method="post" action="/logout">
${hiddenInput('csrf', csrfToken)}
<button type="submit" name="confirm" value="yes">Sign out</button>
</form>`,
  );
}

export const renderLoggedOutPage = (): string => layout('Signed out', '<h1>You are signed out</h1><p>You can close this window.</p>');
