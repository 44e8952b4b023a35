// What counts as this machine for GraphiQL's demo key (src/http/loopback.ts); the pages themselves are
// tested over real sockets in test/api/graphiqlDemoKey.test.ts.
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, isLoopbackHost } from '../../src/http/loopback.js';

describe('what counts as this machine', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::', false],
    ['fe80::1', false],
    ['', false],
    [undefined, false],
  ])('address %s: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });

  it.each([
    ['localhost:4000', true],
    ['LOCALHOST', true],
    ['127.0.0.1:4000', true],
    ['[::1]:4000', true],
    ['localhost.attacker.example', false],
    ['127.0.0.1.nip.io:4000', false],
    ['attacker.example', false],
    [undefined, false],
  ])('Host %s: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
