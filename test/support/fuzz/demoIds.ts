// What the fuzzer fills into ids and credentials: names of the demo data set (IdRef), resolved when a
// request is sent, and realistic values for loosely typed fields. Ids mostly name the clinic's own
// objects (the default caller is the clinic), so that many generated requests succeed and reach the
// domain's inner rules; the rest name other tenants' objects, unknown ids and malformed ones.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { DemoData } from '../../../src/demo/demoData.js';
import { IdRef, type Auth, type Resolver } from './request.js';
import { plainText } from './values.js';

/** The demo data plus what each fuzz case creates first (through the API) and the OAuth tokens. */
export interface FuzzFixtures {
  demo: DemoData;
  closures: { clinic: string; other: string };
  tokens: { clinic: string; readOnly: string };
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export function fixtureResolver(f: () => FuzzFixtures): Resolver {
  return {
    id(name) {
      const { demo, closures } = f();
      const ids: Record<string, string> = {
        'org.clinic': demo.organizations.clinic.id,
        'org.clinic2': demo.organizations.clinic2.id,
        'org.account': demo.organizations.account.id,
        'org.other': demo.organizations.other.id,
        'bot.clinic': demo.bots.clinic[0]!,
        'bot.clinic.1': demo.bots.clinic[1]!,
        'bot.clinic2': demo.bots.clinic2[0]!,
        'bot.other': demo.bots.other[0]!,
        'phone.clinic': demo.phoneNumbers.clinic[0]!,
        'phone.clinic.1': demo.phoneNumbers.clinic[1]!,
        'phone.other': demo.phoneNumbers.other[0]!,
        'insurance.clinic': demo.insurances.clinic[0]!,
        'insurance.clinic.1': demo.insurances.clinic[1]!,
        'insurance.other': demo.insurances.other[0]!,
        'template.clinic': demo.templates.clinic[0]!,
        'template.clinic.1': demo.templates.clinic[1]!,
        'template.other': demo.templates.other[0]!,
        'callRequest.clinic.queued': demo.callRequests.clinic.queued,
        'callRequest.clinic.failed': demo.callRequests.clinic.failed,
        'callRequest.clinic.completed': demo.callRequests.clinic.completed,
        'callRequest.other': demo.callRequests.other.queued,
        'closure.clinic': closures.clinic,
        'closure.other': closures.other,
        nil: NIL_UUID,
        'oauth.clientId': demo.oauthClients.clinic.clientId,
        'oauth.readOnlyClientId': demo.oauthClients.clinicReadOnly.clientId,
        'oauth.clientSecret': demo.oauthClients.clinic.clientSecret,
        'oauth.audience': demo.oauthAudience,
      };
      if (name === 'random') return randomUUID();
      const id = ids[name];
      if (id === undefined) throw new Error(`unknown IdRef ${name}`);
      return id;
    },
    credential(name) {
      const { demo, tokens } = f();
      switch (name) {
        case 'clinicKey':
          return demo.organizations.clinic.apiKey;
        case 'accountKey':
          return demo.organizations.account.apiKey;
        case 'clinic2Key':
          return demo.organizations.clinic2.apiKey;
        case 'otherKey':
          return demo.organizations.other.apiKey;
        case 'clinicToken':
          return tokens.clinic;
        case 'readOnlyToken':
          return tokens.readOnly;
      }
      throw new Error(`unknown credential ${name}`);
    },
  };
}

const ref = (...names: string[]) => fc.constantFrom(...names.map((n) => new IdRef(n)));

/** Id arbitraries by kind: the clinic's own (weight 6), then the others, unknown and nil. */
const byKind: Record<string, fc.Arbitrary<IdRef>> = {
  org: fc.oneof({ arbitrary: ref('org.clinic'), weight: 6 }, ref('org.clinic2', 'org.account', 'org.other', 'random', 'nil')),
  bot: fc.oneof({ arbitrary: ref('bot.clinic', 'bot.clinic.1'), weight: 6 }, ref('bot.clinic2', 'bot.other', 'random', 'nil')),
  phone: fc.oneof({ arbitrary: ref('phone.clinic', 'phone.clinic.1'), weight: 6 }, ref('phone.other', 'random', 'nil')),
  insurance: fc.oneof({ arbitrary: ref('insurance.clinic', 'insurance.clinic.1'), weight: 6 }, ref('insurance.other', 'random', 'nil')),
  template: fc.oneof({ arbitrary: ref('template.clinic', 'template.clinic.1'), weight: 6 }, ref('template.other', 'random', 'nil')),
  callRequest: fc.oneof(
    { arbitrary: ref('callRequest.clinic.failed', 'callRequest.clinic.completed', 'callRequest.clinic.queued'), weight: 6 },
    ref('callRequest.other', 'random', 'nil'),
  ),
  closure: fc.oneof({ arbitrary: ref('closure.clinic'), weight: 6 }, ref('closure.other', 'random', 'nil')),
  any: ref('random', 'nil', 'org.clinic', 'bot.clinic'),
};

/** The kind of object a parameter or argument names, from its name (`orgId`, `botId`, `closureId`, …). */
export function idKind(name: string): string {
  const kinds: Record<string, string> = {
    orgId: 'org',
    botId: 'bot',
    phoneNumberId: 'phone',
    insuranceId: 'insurance',
    templateId: 'template',
    callRequestId: 'callRequest',
    closureId: 'closure',
  };
  return kinds[name] ?? 'any';
}

export function idArbitrary(name: string): fc.Arbitrary<IdRef> {
  return byKind[idKind(name)]!;
}

const pad = (n: number) => String(n).padStart(2, '0');
const minuteTimestamp = fc
  .record({ day: fc.integer({ min: 0, max: 730 }), minute: fc.integer({ min: 0, max: 24 * 4 - 1 }) })
  .map(({ day, minute }) =>
    new Date(Date.UTC(2026, 0, 1) + day * 86_400_000 + minute * 15 * 60_000).toISOString().replace(/:00\.000Z$/, ':00Z'),
  );
/** Instants at the edges of the calendar and of the formats (year 0000 and 9999, the epoch, a DST change). */
const edgeInstant = fc.constantFrom(
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '1969-12-31T23:59:00Z',
  '1970-01-01T00:00:00Z',
  '2026-03-08T07:00:00Z',
  '2026-11-01T06:00:00Z',
  '2038-01-19T03:14:00Z',
  '9999-12-31T23:00:00Z',
  '9999-12-31T23:59:00Z',
);
const localTime = fc
  .record({ h: fc.integer({ min: 0, max: 23 }), m: fc.constantFrom(0, 15, 30, 45) })
  .map(({ h, m }) => `${pad(h)}:${pad(m)}`);

/** Realistic values for fields the schemas type only as "string" or JSON. */
const HINTS: Record<string, fc.Arbitrary<unknown>> = {
  startAt: fc.oneof({ arbitrary: minuteTimestamp, weight: 9 }, edgeInstant),
  endAt: fc.oneof({ arbitrary: minuteTimestamp, weight: 9 }, edgeInstant),
  at: fc.oneof(
    { arbitrary: minuteTimestamp, weight: 6 },
    { arbitrary: minuteTimestamp.map((s) => s.replace('Z', '+02:00')), weight: 2 },
    edgeInstant,
    fc.constantFrom('9999-12-31T23:59:59+14:00', '0001-01-01T00:00:00-12:00', '2026-03-08T07:00:00.123456789Z'),
  ),
  open: fc.oneof(localTime, fc.constantFrom('08:00', '09:00', '9:00')),
  close: fc.oneof(localTime, fc.constantFrom('17:00', '18:30')),
  start: fc.oneof(localTime, fc.constantFrom('12:00', '12:30')),
  end: fc.oneof(localTime, fc.constantFrom('13:00', '13:30')),
  description: plainText(),
  chatGreeting: plainText(),
  phoneGreeting: plainText(),
  greeting: plainText(),
  reason: plainText(),
  notes: plainText(),
  name: plainText(),
  title: plainText(),
  instructions: plainText(),
  usageContext: plainText(),
  templateName: plainText(),
  templateBody: plainText(),
  action: fc.constantFrom('', 'COLLECT_INFO', 'SEND_SMS', 'TRANSFER'),
  examples: fc.array(plainText(), { maxLength: 3 }),
  applicableMediums: fc.oneof(fc.constant(null), fc.uniqueArray(fc.constantFrom('CHAT', 'PHONE', 'GHL', 'SMS'), { maxLength: 4 })),
  officeHoursAvailability: fc.constantFrom('OPEN', 'CLOSED', null),
  order: fc.integer({ min: 0, max: 10 }),
  enabled: fc.boolean(),
  type: fc.constant('STRING'),
};

export function hint(name: string): fc.Arbitrary<unknown> | undefined {
  return HINTS[name];
}

/** Who calls: mostly the clinic (API key or OAuth token), sometimes another credential, none or garbage. */
export const authArbitrary: fc.Arbitrary<Auth> = fc.oneof(
  { arbitrary: fc.constant<Auth>({ credential: 'clinicKey' }), weight: 12 },
  { arbitrary: fc.constant<Auth>({ credential: 'clinicToken' }), weight: 3 },
  {
    arbitrary: fc.constantFrom<Auth>(
      { credential: 'accountKey' },
      { credential: 'clinic2Key' },
      { credential: 'otherKey' },
      { credential: 'readOnlyToken' },
    ),
    weight: 3,
  },
  { arbitrary: fc.constant<Auth>({ none: true }), weight: 1 },
  {
    arbitrary: fc.constantFrom<Auth>(
      { header: 'Bearer' },
      { header: 'Bearer ' },
      { header: 'bearer svc-sk-v2-0000' },
      { header: 'Basic dXNlcjpwYXNz' },
      { header: 'Bearer svc-sk-v2-' + 'A'.repeat(43) },
      { header: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
      { header: 'Bearer ' + 'x'.repeat(70_000) },
      { header: 'Bearer \u00ff\u00fe' },
      { header: 'Bearer a, Bearer b' },
    ),
    weight: 1,
  },
);
