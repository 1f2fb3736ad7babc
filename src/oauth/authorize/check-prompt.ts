// OIDC Core 3.1.2.1: prompt is a space-separated list; `none` must not be combined with another value.
import { OAuthError } from '../../http/errors.js';
import type { Prompt } from './authorization-request.js';
import type { RequestParameters } from './parameters.js';

const PROMPTS: readonly Prompt[] = ['none', 'login', 'consent', 'select_account'];
const isPrompt = (value: string): value is Prompt => (PROMPTS as readonly string[]).includes(value);

export function checkPrompt(params: RequestParameters): Prompt[] {
  const values = [...new Set((params.values.prompt ?? '').split(' ').filter(Boolean))];
  const unknown = values.find((v) => !isPrompt(v));
  if (unknown !== undefined) throw new OAuthError('invalid_request', `prompt=${unknown} is not supported.`);
  if (values.includes('none') && values.length > 1) throw new OAuthError('invalid_request', 'prompt=none cannot be combined with other values.');
  return values as Prompt[];
}
