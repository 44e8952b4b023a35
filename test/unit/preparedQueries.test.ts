// The store of compiled queries is bounded (least recently used out) and keyed by document and operation.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { PreparedQueries } from '../../src/graphql/preparedQueries.js';
import { schema } from '../../src/graphql/schema/index.js';

const documents = ['{ viewer { scopes } }', '{ viewer { organization { id } } }', '{ viewer { scopes organization { id } } }'];

describe('PreparedQueries', () => {
  it('keeps at most maxEntries, dropping the least recently used', () => {
    const store = new PreparedQueries(schema, 2);
    store.prepare(documents[0]!, parse(documents[0]!), undefined);
    store.prepare(documents[1]!, parse(documents[1]!), undefined);
    store.prepare(documents[0]!, parse(documents[0]!), undefined); // used: documents[1] is now the oldest
    store.prepare(documents[2]!, parse(documents[2]!), undefined);
    expect(store.size).toBe(2);
    expect(store.has(documents[0]!, undefined)).toBe(true);
    expect(store.has(documents[1]!, undefined)).toBe(false);
    expect(store.has(documents[2]!, undefined)).toBe(true);
  });

  it('keys by operation as well as by document', () => {
    const text = 'query Viewer { viewer { scopes } } query Other { a: viewer { organization { id } } b: viewer { scopes } }';
    const store = new PreparedQueries(schema);
    const viewer = store.prepare(text, parse(text), 'Viewer')!;
    expect(store.has(text, 'Other')).toBe(false);
    const other = store.prepare(text, parse(text), 'Other')!;
    expect(other).not.toBe(viewer);
    expect(store.prepare(text, parse(text), 'Viewer')).toBe(viewer);
  });

  it('does not prepare introspection (metered before it runs, graphql/rateLimits.ts)', () => {
    const text = '{ __schema { queryType { name } } }';
    const store = new PreparedQueries(schema);
    expect(store.prepare(text, parse(text), undefined)).toBeUndefined();
    expect(store.prepare('{ __typename }', parse('{ __typename }'), undefined)).toBeDefined();
  });
});
