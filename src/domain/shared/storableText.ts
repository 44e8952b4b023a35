// Text that can be stored as sent. PostgreSQL text and jsonb cannot hold NUL (U+0000), and UTF-8
// cannot encode an unpaired surrogate (a JSON string may carry one as "\ud800"): the first made the
// database refuse the write (a 500), the second was silently replaced by U+FFFD (or refused inside
// jsonb). Every free-text field of every write is checked here, so either is a 400 naming the field.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}
