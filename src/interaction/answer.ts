// Where the browser goes after a step of the flow: one of our own pages (303), or the authorization
// response to the client, delivered in the response mode the client asked for — the auto-submitting form of
// OAuth 2.0 Form Post Response Mode, or the query: a 303 when the browser came by a navigation (GET), the
// hand-over page when it came by submitting one of our forms (pages/hand-over-page.ts: a redirect after a
// form is checked against our CSP form-action, and would block a redirect_uri that redirects on to another
// origin). Deciding here, from the request itself, means no route that answers the client can forget it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Brand } from '../http/brand.js';
import { responseUrl, type AuthorizationResponse } from '../oauth/authorize/redirect.js';
import { seeOther, sendPage } from './interaction-context.js';
import { formPostHeaders, renderFormPostPage } from './pages/form-post-page.js';
import { pageSecurityHeaders } from '../http/html.js';
import { renderHandOverPage } from './pages/hand-over-page.js';

/** A path of ours, or the answer to the client. */
export type Next = string | AuthorizationResponse;

/** What the form-post page needs: its CSP names the script by the issuer's origin, and it wears the brand. */
export interface AnswerDeps {
  issuer: string;
  brand: Brand;
}

export interface AnswerOptions {
  /**
   * The POST is the client's own form (POST /authorize, RFC 6749 3.1): the redirects after it are checked
   * against the CLIENT's page's form-action, not ours, so the answer stays a 303 — which also keeps a
   * prompt=none request posted into a frame working (the hand-over page refuses framing).
   */
  clientForm?: boolean;
}

/** The browser submitted a form of ours: the answer is a page, not a redirect (see the file comment). */
const afterOurForm = (request: FastifyRequest, options: AnswerOptions): boolean => request.method === 'POST' && !options.clientForm;

export function sendAuthorizationResponse(reply: FastifyReply, response: AuthorizationResponse, deps: AnswerDeps, options: AnswerOptions = {}): FastifyReply {
  if (response.target.responseMode === 'form_post') {
    return sendPage(reply, renderFormPostPage(deps.brand, response), 200, formPostHeaders(response.target.redirectUri, deps.issuer));
  }
  // responseUrl is built from the validated redirect_uri and the response's own parameters only.
  const url = responseUrl(response);
  if (afterOurForm(reply.request, options)) {
    // Every page's headers: no-store (the URI carries a code), no-referrer (the refresh sends the client no Referer
    // naming our interaction), frame-ancestors 'none', form-action 'self'.
    return sendPage(reply, renderHandOverPage(deps.brand, { href: url, title: 'Returning to the application' }), 200, pageSecurityHeaders);
  }
  return seeOther(reply, url);
}

export const sendNext = (reply: FastifyReply, next: Next, deps: AnswerDeps, options: AnswerOptions = {}): FastifyReply =>
  typeof next === 'string' ? seeOther(reply, next) : sendAuthorizationResponse(reply, next, deps, options);
