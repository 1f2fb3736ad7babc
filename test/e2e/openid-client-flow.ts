// openid-client as the relying party of a browser test: sends the page to an authorization URL with PKCE
// (S256), state and nonce, and returns what the code exchange at the redirect needs. The caller drives the
// pages in between and calls finish() once the browser is back at the redirect URI.
import * as oidc from 'openid-client';
import type { Page } from 'playwright-core';

export async function startOpenidClientFlow(page: Page, config: oidc.Configuration, redirectUri: string, params: Record<string, string>) {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...params,
  });
  await page.goto(url.href);
  return {
    state,
    finish: () =>
      oidc.authorizationCodeGrant(config, new URL(page.url()), {
        pkceCodeVerifier: codeVerifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      }),
  };
}
