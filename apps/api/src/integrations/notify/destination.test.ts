import dns from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DestinationRefusedError, checkedAddress, destinationAgent, refusalOf } from './destination.ts';

// The name `rebind.invalid` resolves only through the stubbed lookup: a connection that reached the receiver went
// to the address the check answered, not to a second resolution of the name.
let receiver: http.Server;
let port: number;
const hosts: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    hosts.push(String(req.headers.host));
    res.end('ok');
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => receiver.close(r)));
afterEach(() => {
  vi.restoreAllMocks();
  hosts.length = 0;
});

const stubLookup = (...answers: string[][]) => {
  const spy = vi.spyOn(dns, 'lookup');
  for (const a of answers) spy.mockResolvedValueOnce(a.map((address) => ({ address, family: 4 })) as never);
  return spy;
};

describe('alert destinations', () => {
  it('refuse a name when any of its addresses is private, and name only the host', async () => {
    stubLookup(['8.8.8.8', '10.0.0.7']);
    const err = await checkedAddress('mixed.invalid', { allowPrivate: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DestinationRefusedError);
    expect((err as Error).message).toBe(
      'mixed.invalid is a loopback, private or link-local address, which alert channels may not reach',
    );
  });

  it('connect to the address that was checked, each connection checked again', async () => {
    const agent = destinationAgent({ allowPrivate: true });
    const lookup = stubLookup(['127.0.0.1'], ['127.0.0.1']);
    const url = `http://rebind.invalid:${port}/`;
    expect((await fetch(url, { dispatcher: agent, headers: { connection: 'close' } })).status).toBe(200);
    expect((await fetch(url, { dispatcher: agent, headers: { connection: 'close' } })).status).toBe(200);
    expect(hosts).toEqual([`rebind.invalid:${port}`, `rebind.invalid:${port}`]);
    expect(lookup).toHaveBeenCalledTimes(2);
    await agent.close();
  });

  it('refuse a name that resolves to loopback when the connection is made', async () => {
    const agent = destinationAgent({ allowPrivate: false });
    stubLookup(['127.0.0.1']);
    const err = await fetch(`http://rebind.invalid:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(refusalOf(err)?.host).toBe('rebind.invalid');
    expect(hosts).toEqual([]);
    await agent.close();
  });
});
