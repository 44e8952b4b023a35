// The label values of the metrics (src/metrics): each comes from a fixed set, whatever the request.
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../src/db/gate.js';
import { statementErrorReason } from '../../src/metrics/databaseMetrics.js';
import { operationLabel } from '../../src/graphql/operationLabel.js';
import { routeLabel } from '../../src/metrics/requestMetrics.js';

describe('GraphQL operation label', () => {
  it('keeps the names the service knows: its root fields in PascalCase, the GraphiQL examples, IntrospectionQuery', () => {
    for (const name of [
      'Viewer',
      'Organization',
      'CreateClosure',
      'SetOfficeHours',
      'Availability',
      'ConversationsByCursor',
      'IntrospectionQuery',
    ]) {
      expect(operationLabel(name)).toBe(name);
    }
  });

  it('turns any other name into `other`, and no name into `anonymous`', () => {
    for (const name of [
      'viewer',
      'MyDashboardQuery',
      'Viewer2',
      `Viewer${'x'.repeat(100)}`,
      'Vi ewer',
      'Viewer\n',
      '__proto__',
      'constructor',
    ]) {
      expect(operationLabel(name)).toBe('other');
    }
    for (const name of [undefined, null, '']) expect(operationLabel(name)).toBe('anonymous');
    // operationName is whatever JSON the client sent; a deeply nested array must not be stringified
    let nested: unknown = 'Viewer';
    for (let i = 0; i < 20_000; i++) nested = [nested];
    for (const value of [['Viewer'], { name: 'Viewer' }, 42, true, nested]) expect(operationLabel(value)).toBe('other');
  });
});

describe('route label', () => {
  it('is the pattern the code set, `unmatched` without one, and one value for every 405', () => {
    expect(routeLabel('GET /v1/organizations/:orgId')).toBe('GET /v1/organizations/:orgId');
    expect(routeLabel(undefined)).toBe('unmatched');
    expect(routeLabel('PROPFIND (method not allowed)')).toBe('method not allowed');
  });
});

describe('statement error reason', () => {
  it('tells a timeout and a lost connection from an error the database answered', () => {
    expect(statementErrorReason(new DatabaseUnavailableError('timeout', 'x'))).toBe('timeout');
    expect(statementErrorReason(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toBe(
      'timeout',
    );
    expect(statementErrorReason(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe('unreachable');
    expect(statementErrorReason(new DatabaseUnavailableError('unreachable', 'x'))).toBe('unreachable');
    expect(statementErrorReason(Object.assign(new Error('duplicate key value'), { code: '23505' }))).toBe('error');
  });
});
