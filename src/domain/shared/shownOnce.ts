// Secrets are shown once (docs/decisions.md §10, SECURITY.md): an API key, an OAuth client's secret and a
// webhook endpoint's signing secret are in the answer of the request that made them and nowhere else —
// stored hashed or encrypted, never in an event, and never in an idempotent replay. Each answer type that
// carries a secret is declared here, once, with the field that holds it; the OpenAPI component and the
// GraphQL type have that name, and both surfaces derive from this declaration what a replay keeps (rest/
// idempotency.ts, graphql/idempotentOperations.ts): the same object with the secret null and
// `secretShownOnce: true`. The answer that shows the secret says `secretShownOnce: false`.
import { z } from 'zod';

/** The answer types that carry a secret, and the field holding it. */
export const SECRET_FIELDS = {
  ApiKeyWithSecret: 'apiKey',
  OAuthClientWithSecret: 'clientSecret',
  WebhookEndpointWithSecret: 'secret',
} as const;

export type SecretAnswerType = keyof typeof SECRET_FIELDS;

/** The field beside the secret saying whether this answer withholds it. */
export const SHOWN_ONCE_FIELD = 'secretShownOnce';

// Patients' words are withheld from every idempotent replay the same way (docs/decisions.md "Patients' words
// are never replayed"): an answer type that echoes what a patient said is declared here with the field that
// holds the words; the replay (and the IdempotencyKey row it is stored in) has that field null and
// `textWithheld: true`. The first answer shows the words (the caller just sent them) with `textWithheld: false`.

/** The answer types that echo a patient's words, and the field holding them. */
export const PATIENT_WORDS_FIELDS = {
  AddedConversationMessage: 'text',
} as const;

export type PatientWordsAnswerType = keyof typeof PATIENT_WORDS_FIELDS;

/** The field beside the words saying whether this answer withholds them. */
export const TEXT_WITHHELD_FIELD = 'textWithheld';

/** What an idempotent replay of an answer type withholds: the field (null in the replay) and its marker (true in the replay). */
export interface ReplayWithheld {
  field: string;
  marker: string;
}

/** What a replay of an answer of `typeName` withholds: its secret or its patient's words; undefined for most types. */
export function replayWithheldOf(typeName: string | undefined): ReplayWithheld | undefined {
  if (typeName === undefined) return undefined;
  if (Object.hasOwn(SECRET_FIELDS, typeName)) return { field: SECRET_FIELDS[typeName as SecretAnswerType], marker: SHOWN_ONCE_FIELD };
  if (Object.hasOwn(PATIENT_WORDS_FIELDS, typeName))
    return { field: PATIENT_WORDS_FIELDS[typeName as PatientWordsAnswerType], marker: TEXT_WITHHELD_FIELD };
  return undefined;
}

/** What a secret-bearing answer adds to its object: the secret (null in a replay) and `secretShownOnce`. */
export type WithSecret<View, Field extends string> = View & { [K in Field]: string | null } & { secretShownOnce: boolean };

/** The answer of the request that made the secret: the only one that shows it. */
export function showOnce<View extends object, Field extends string>(view: View, field: Field, secret: string): WithSecret<View, Field> {
  return { ...view, [field]: secret, [SHOWN_ONCE_FIELD]: false } as WithSecret<View, Field>;
}

/** The secret field type of a secret-bearing answer type. */
export function secretFieldOf(typeName: string | undefined): string | undefined {
  return typeName !== undefined && Object.hasOwn(SECRET_FIELDS, typeName) ? SECRET_FIELDS[typeName as SecretAnswerType] : undefined;
}

/** The descriptions of the secret field and of `secretShownOnce`, the same on both surfaces. */
export function secretDescriptions(field: string, what: string): { secret: string; shownOnce: string } {
  return {
    secret:
      `${what}: shown only in the answer of the request that made it; keep it. ` +
      'Null in an idempotent replay (`secretShownOnce: true`).',
    shownOnce:
      `False in the answer that shows \`${field}\`; true in an idempotent replay (\`Idempotent-Replayed: true\`), which answers the same ` +
      `object with \`${field}: null\`: the secret was shown once and is stored nowhere in clear.`,
  };
}

/** The zod fields of the secret and `secretShownOnce` (the OpenAPI document's description of both). */
export function secretFields<Field extends string>(field: Field, what: string) {
  const described = secretDescriptions(field, what);
  return {
    [field]: z.string().nullable().describe(described.secret),
    [SHOWN_ONCE_FIELD]: z.boolean().describe(described.shownOnce),
  } as { [K in Field]: z.ZodNullable<z.ZodString> } & { secretShownOnce: z.ZodBoolean };
}

/** The stored form of an object answered with its secret or words: those withheld (the replay's object). In place. */
export function withholdForReplay(object: Record<string, unknown>, withheld: ReplayWithheld): void {
  if (withheld.field in object) object[withheld.field] = null;
  if (withheld.marker in object) object[withheld.marker] = true;
}
