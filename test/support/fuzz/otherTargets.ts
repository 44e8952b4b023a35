// Fuzz targets outside the OpenAPI document and the schema's fields: the OAuth token endpoint, GraphQL
// requests that are not one operation (batches, wrong shapes, mutations over GET), and paths no route
// answers. Each answer must still be well-formed and a 4xx (or a 2xx token).
import fc from 'fast-check';
import { authArbitrary } from './demoIds.js';
import { IdRef, JsonEntries, JsonParam, type Body, type FuzzRequest } from './request.js';
import { rarely, type FuzzTarget } from './target.js';
import { transportChange } from './transport.js';
import { deepNesting, hostileValue, nastyString, protoKey } from './values.js';

const usually = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: hostileValue, weight: 1 }, { arbitrary: fc.constant(undefined), weight: 1 });

const oauthBody = fc
  .record({
    grant_type: usually(fc.constant('client_credentials')),
    client_id: usually(fc.constantFrom(new IdRef('oauth.clientId'), new IdRef('oauth.readOnlyClientId'))),
    client_secret: usually(fc.constant(new IdRef('oauth.clientSecret'))),
    audience: usually(fc.constant(new IdRef('oauth.audience'))),
  })
  .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));

const oauth: FuzzTarget = {
  name: 'POST /oauth/token',
  surface: 'other',
  writes: false,
  request: fc
    .tuple(
      fc.oneof(
        oauthBody,
        hostileValue,
        oauthBody.map((b) => new JsonEntries([...Object.entries(b), ['client_id', 'x'], ['__proto__', { scope: 'admin' }]])),
      ),
      fc.constantFrom<Body['encoding']>('json', 'json', 'form', 'multipart'),
      rarely(transportChange),
    )
    .map(([value, encoding, change]) => {
      const req: FuzzRequest = {
        target: 'POST /oauth/token',
        method: 'POST',
        path: ['oauth', 'token'],
        query: [],
        auth: { none: true },
        headers: [],
        body: { encoding, value } as Body,
      };
      return change ? change(req) : req;
    }),
};

const someQuery = fc.constantFrom(
  '{ viewer { scopes } }',
  '{ __typename }',
  'query { templates { id } }',
  '{ __schema { queryType { name } } }',
);
const someMutation = fc.constantFrom('mutation { disableOrganization(orgId: "00000000-0000-0000-0000-000000000000") { status } }');

const graphQLShapes: fc.Arbitrary<unknown> = fc.oneof(
  // batches: refused or answered per operation, never a crash
  fc.array(fc.record({ query: fc.oneof(someQuery, someMutation) }), { minLength: 0, maxLength: 3 }),
  fc.constant(Array.from({ length: 200 }, () => ({ query: '{ __typename }' }))),
  fc.record({ query: hostileValue }),
  fc.record({ query: someQuery, variables: fc.oneof(hostileValue, deepNesting) }),
  fc.record({ query: someQuery, extensions: hostileValue }),
  fc.record({ query: someQuery, operationName: fc.oneof(nastyString, hostileValue) }),
  fc.tuple(protoKey, someQuery).map(
    ([k, q]) =>
      new JsonEntries([
        ['query', q],
        [k, { query: 'mutation { x }' }],
      ]),
  ),
  fc.tuple(someQuery, someQuery).map(
    ([a, b]) =>
      new JsonEntries([
        ['query', a],
        ['query', b],
      ]),
  ),
  fc.constant({ query: '{' + 'viewer { organization { children { '.repeat(30) + 'id' + ' } } }'.repeat(30) + '}' }),
  fc.constant({ query: '{ viewer { scopes } }'.padEnd(200_000, ' ') + '#' }),
  fc.constant({ query: `{ ${'__typename '.repeat(6000)}}` }),
  fc.constant({ query: 'fragment A on Query { ...B } fragment B on Query { ...A } { ...A }' }),
  fc.constant({ query: '{ viewer @include(if: true) @skip(if: false) @deprecated { scopes } }' }),
  fc.constant(
    new JsonEntries([
      ['query', '{ viewer { scopes } }'],
      ['variables', new JsonEntries([['__proto__', { x: 1 }]])],
    ]),
  ),
  hostileValue,
);

const graphqlRaw: FuzzTarget = {
  name: 'POST /graphql (other shapes)',
  surface: 'graphql',
  writes: false,
  request: fc
    .tuple(
      fc.oneof(
        fc.tuple(graphQLShapes, authArbitrary).map(([value, auth]): FuzzRequest => ({
          target: 'POST /graphql (other shapes)',
          method: 'POST',
          path: ['graphql'],
          query: [],
          auth,
          headers: [],
          body: { encoding: 'json', value },
        })),
        // over GET: a mutation (CSRF) must not run; malformed parameters must be refused
        fc
          .tuple(fc.oneof(someMutation, someQuery, nastyString), fc.oneof(fc.constant(undefined), hostileValue), authArbitrary)
          .map(([query, variables, auth]): FuzzRequest => ({
            target: 'POST /graphql (other shapes)',
            method: 'GET',
            path: ['graphql'],
            query: [
              ['query', query],
              ...(variables === undefined ? [] : ([['variables', new JsonParam(variables)]] as [string, JsonParam][])),
            ],
            auth,
            headers: [['accept', 'application/json']],
          })),
      ),
      rarely(transportChange),
    )
    .map(([req, change]) => (change ? change(req) : req)),
};

const unknownPaths: FuzzTarget = {
  name: 'unknown paths',
  surface: 'rest',
  writes: false,
  request: fc
    .tuple(
      fc.array(
        fc.oneof(
          fc.constantFrom(
            'v1',
            'organizations',
            'graphql ',
            'v2',
            '..',
            '.',
            '%2e%2e',
            '%00',
            '%ZZ',
            'oauth',
            'token',
            'docs.json',
            '',
            'V1',
          ),
          nastyString.map(encodeURIComponentSafe),
        ),
        { minLength: 1, maxLength: 5 },
      ),
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
      authArbitrary,
    )
    .map(([segments, method, auth]): FuzzRequest => ({
      target: 'unknown paths',
      method,
      path: ['v1', ...segments, 'unknown'],
      query: [],
      auth,
      headers: [],
    })),
};

function encodeURIComponentSafe(s: string): string {
  return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
}

export const otherTargets: FuzzTarget[] = [oauth, graphqlRaw, unknownPaths];
