// `GET /admin/v1/users?attribute=NAME:VALUE`: users whose custom attribute NAME is VALUE, or an array holding
// it. VALUE is text as typed; when it also reads as a JSON number or boolean (`level:3`, `staff:true`) the
// typed value matches too, since the CLI stores `3` as a number (parseAttributeValue). Objects and arrays are
// not search values. The query is containment only, answered by the GIN index of migration 0490.
import { ProblemError } from '../../http/errors.js';
import { attributeNameProblem, parseAttributeValue } from '../../admin-services/user-attributes.js';

export interface AttributeSearch {
  name: string;
  values: readonly unknown[];
}

const badAttribute = (message: string) =>
  new ProblemError('bad-request', 'The attribute parameter is not understood.', { errors: [{ field: 'attribute', message }] });

export function attributeSearchOf(raw: string | undefined): AttributeSearch | undefined {
  if (raw === undefined) return undefined;
  const colon = raw.indexOf(':');
  if (colon < 1) throw badAttribute('must be NAME:VALUE (the attribute name, a colon, the value)');
  const name = raw.slice(0, colon);
  const text = raw.slice(colon + 1);
  const nameProblem = attributeNameProblem(name);
  if (nameProblem) throw badAttribute(nameProblem.message);
  const typed = parseAttributeValue(text);
  const scalar = typeof typed === 'number' || typeof typed === 'boolean';
  return { name, values: scalar && Number.isFinite(Number(typed)) ? [text, typed] : [text] };
}
