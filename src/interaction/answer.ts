// Where the browser goes after a step of the flow: one of our own pages (303), or the authorization
// response to the client, delivered in the response mode the client asked for — a 303 with the query
// (the default) or the auto-submitting form of OAuth 2.0 Form Post Response Mode.
import type { FastifyReply } from 'fastify';
import type { Brand } from '../http/brand.js';
import { responseUrl, type AuthorizationResponse } from '../oauth/authorize/redirect.js';
import { seeOther, sendPage } from './interaction-context.js';
import { formPostHeaders, renderFormPostPage } from './pages/form-post-page.js';

/** A path of ours, or the answer to the client. */
export type Next = string | AuthorizationResponse;

/** What the form-post page needs: its CSP names the script by the issuer's origin, and it wears the brand. */
export interface AnswerDeps {
  issuer: string;
  brand: Brand;
}

export function sendAuthorizationResponse(reply: FastifyReply, response: AuthorizationResponse, deps: AnswerDeps): FastifyReply {
  if (response.target.responseMode === 'form_post') {
    return sendPage(reply, renderFormPostPage(deps.brand, response), 200, formPostHeaders(response.target.redirectUri, deps.issuer));
  }
  return seeOther(reply, responseUrl(response));
}

export const sendNext = (reply: FastifyReply, next: Next, deps: AnswerDeps): FastifyReply =>
  typeof next === 'string' ? seeOther(reply, next) : sendAuthorizationResponse(reply, next, deps);
