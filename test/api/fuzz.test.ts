// Fuzzing from the API's own description: every operation of GET /v1/openapi.json and every root field
// of the GraphQL schema gets valid, almost valid and hostile requests (fast-check, a fixed seed). Every
// answer must be a well-formed envelope (or GraphQL result) with a 2xx or 4xx, nothing may be logged as
// an unhandled error, and only a successful write may change the database (per-table checksums after
// every request). A failure prints the shrunk request as a curl command and the seed/path to replay it.
//
//   FUZZ_SEED=123 FUZZ_RUNS=50000 npx vitest run --config test/vitest.config.ts test/api/fuzz.test.ts
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createApp } from '../../src/app.js';
import type { Logger } from '../../src/logger.js';
import { fixtureResolver, type FuzzFixtures } from '../support/fuzz/demoIds.js';
import { graphQLTargets } from '../support/fuzz/graphqlTargets.js';
import { otherTargets } from '../support/fuzz/otherTargets.js';
import { restTargets, type OpenApiDocument } from '../support/fuzz/restTargets.js';
import type { FuzzTarget } from '../support/fuzz/target.js';
import { schema } from '../../src/graphql/schema/index.js';
import { createFuzzRunner, runFuzz, type FuzzRunner, type FuzzStats } from '../support/fuzz/runner.js';
import { tableChecksumReader } from '../support/tableChecksums.js';
import { useTestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({
  env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED, UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: UNLIMITED },
});

const seed = Number(process.env.FUZZ_SEED ?? 20260412);
const totalRuns = Number(process.env.FUZZ_RUNS ?? 10_000);
const path = process.env.FUZZ_PATH;
/** How the runs are shared between the surfaces. */
const share = { rest: 0.55, graphql: 0.35, transport: 0.1 };

let fixtures: FuzzFixtures;
let runner: FuzzRunner;
let rest: FuzzTarget[];
let graphql: FuzzTarget[];
let targets: FuzzTarget[];
const allStats: FuzzStats[] = [];
const loggedErrors: string[] = [];

const capturingLogger = (inner: Logger): Logger => ({
  ...inner,
  error: (msg, fields) => {
    // the logger's `error` field is the error's message (errorFields); anything else is shown as JSON
    const error = fields?.error;
    loggedErrors.push(`${msg}: ${typeof error === 'string' ? error : (JSON.stringify(error) ?? '')}`);
    inner.error(msg, fields);
  },
});

beforeAll(async () => {
  console.log(`fuzz: seed ${seed}, ${totalRuns} runs (override with FUZZ_SEED, FUZZ_RUNS; FUZZ_PATH replays one case)`);
  const doc = (await (await t.fetch('/v1/openapi.json')).json()) as OpenApiDocument;
  rest = restTargets(doc);
  graphql = graphQLTargets(schema);
  targets = [...rest, ...graphql, ...otherTargets];
});

/** A closure created through the API, for the requests that read, update or delete one. */
async function createClosure(orgId: string, apiKey: string): Promise<string> {
  const res = await t.rest('POST', `/v1/organizations/${orgId}/closures`, {
    token: apiKey,
    json: { description: 'Fuzz fixture', annualDate: { month: 12, day: 24 }, chatGreeting: null, phoneGreeting: 'Closed 🎄' },
  });
  expect(res.status).toBe(200);
  return res.body.data.id as string;
}

beforeEach(async () => {
  // the fixtures every case starts from: a closure in the clinic and in the other tenant, OAuth tokens
  const orgs = t.demo.organizations;
  fixtures = {
    demo: t.demo,
    closures: {
      clinic: await createClosure(orgs.clinic.id, orgs.clinic.apiKey),
      other: await createClosure(orgs.other.id, orgs.other.apiKey),
    },
    tokens: { clinic: await t.accessToken('clinic'), readOnly: await t.accessToken('clinicReadOnly') },
  };
  const app = createApp({ ...t.deps, logger: capturingLogger(t.deps.logger) });
  runner = createFuzzRunner({
    app,
    resolver: fixtureResolver(() => fixtures),
    targets,
    checksums: await tableChecksumReader(t.db.prisma),
    drainLoggedErrors: () => loggedErrors.splice(0),
    // a fuzzed delete may remove a fixture closure: create another, so that later requests can succeed
    async restoreFixtures(req, status) {
      if (status >= 300 || (req.method !== 'DELETE' && req.target !== 'Mutation.deleteClosure')) return false;
      let wrote = false;
      for (const who of ['clinic', 'other'] as const) {
        if ((await t.db.prisma.closure.count({ where: { id: fixtures.closures[who] } })) > 0) continue;
        fixtures.closures[who] = await createClosure(orgs[who].id, orgs[who].apiKey);
        wrote = true;
      }
      return wrote;
    },
  });
  allStats.push(runner.stats);
});

afterAll(() => {
  const requests = allStats.reduce((n, s) => n + s.requests, 0);
  console.log(`fuzz: seed ${seed}, ${requests} requests sent`);
});

const runsFor = (part: keyof typeof share) => Math.max(1, Math.round(totalRuns * share[part]));

describe('fuzzing', () => {
  it('every /v1 operation of the OpenAPI document', { timeout: 600_000 }, async ({ task }) => {
    expect(rest.length).toBeGreaterThan(15);
    await runFuzz(runner, fc.oneof(...rest.map((x) => x.request)), { test: task.name, seed, numRuns: runsFor('rest'), path });
    console.log(`fuzz REST:\n${runner.stats.summary()}`);
    if (!path) for (const target of rest) expect(runner.stats.count(target.name), target.name).toBeGreaterThan(10);
  });

  it('every root field of the GraphQL schema', { timeout: 600_000 }, async ({ task }) => {
    expect(graphql.length).toBeGreaterThan(10);
    await runFuzz(runner, fc.oneof(...graphql.map((x) => x.request)), { test: task.name, seed, numRuns: runsFor('graphql'), path });
    console.log(`fuzz GraphQL:\n${runner.stats.summary()}`);
    if (!path) for (const target of graphql) expect(runner.stats.count(target.name), target.name).toBeGreaterThan(10);
  });

  it('the token endpoint, other GraphQL shapes and unknown paths', { timeout: 600_000 }, async ({ task }) => {
    await runFuzz(runner, fc.oneof(...otherTargets.map((x) => x.request)), { test: task.name, seed, numRuns: runsFor('transport'), path });
    console.log(`fuzz other:\n${runner.stats.summary()}`);
    if (!path) for (const target of otherTargets) expect(runner.stats.count(target.name), target.name).toBeGreaterThan(10);
  });
});
