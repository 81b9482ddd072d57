import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { FleetItem, FleetPlan } from '@fleetdesk/contract';
import { errorOf } from './client.ts';
import { configPath, loadConnection, saveConnection } from './config.ts';
import { changeLine, planExitCode, planText } from './diff.ts';
import { CliError } from './errors.ts';
import { jobExitCode, main, parseCommand } from './main.ts';
import { parseStateText, stateYaml } from './state.ts';

const TOKEN = `fdt_${'a'.repeat(64)}`;
const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), interactive: false },
    out,
    err,
  };
};

describe('arguments', () => {
  it('finds two-word commands, their options and positionals', () => {
    const p = parseCommand(['domains', 'ls', '--brand', 'Acme', '--health', 'failing', '--json']);
    expect(p).toMatchObject({
      name: 'domains ls',
      values: { brand: 'Acme', health: 'failing', json: true },
      positionals: [],
    });
    expect(parseCommand(['apply', 'fleet.yaml', '--max-changes', '3', '-y'])).toMatchObject({
      name: 'apply',
      values: { 'max-changes': '3', yes: true },
      positionals: ['fleet.yaml'],
    });
    expect(parseCommand([])).toBe('help');
  });
  it('refuses what a command does not take, with its usage', () => {
    expect(() => parseCommand(['plan'])).toThrow(/Usage: fleetdesk plan <fleet.yaml>/);
    expect(() => parseCommand(['plan', 'a.yaml', '--purge'])).toThrow(/Unknown option '--purge'/);
    expect(() => parseCommand(['deploy'])).toThrow(CliError);
  });
  it('exits 1 with one line for a bad --max-changes, before any request', async () => {
    const c = capture();
    expect(await main(['apply', 'x.yaml', '--max-changes', 'ten'], c.io, {})).toBe(1);
    expect(c.err.join('')).toBe('fleetdesk: --max-changes must be a whole number, 0 or more\n');
  });
  it('jobs watch: exit codes by outcome', () => {
    expect([
      jobExitCode('completed'),
      jobExitCode('completed_with_failures'),
      jobExitCode('failed'),
      jobExitCode('cancelled'),
    ]).toEqual([0, 3, 1, 1]);
  });
});

describe('config', () => {
  it('keeps the connection under XDG_CONFIG_HOME with mode 0600, and the environment wins', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-cli-'));
    const env = { XDG_CONFIG_HOME: dir };
    const file = saveConnection({ url: 'https://console.example', token: TOKEN }, env);
    expect(file).toBe(path.join(dir, 'fleetdesk', 'config.json'));
    expect(configPath(env)).toBe(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConnection(env)).toEqual({ url: 'https://console.example', token: TOKEN });
    expect(loadConnection({ ...env, FLEETDESK_URL: 'http://127.0.0.1:1/x/' }).url).toBe('http://127.0.0.1:1');
    expect(() => loadConnection({ XDG_CONFIG_HOME: path.join(dir, 'none') })).toThrow(/Not logged in/);
    expect(() => loadConnection({ ...env, FLEETDESK_TOKEN: 'secret' })).toThrow(/personal API token/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  it('says a refused token in one line naming the server, never the token', () => {
    const e = errorOf('https://console.example', 401, { message: 'This API token is invalid, expired or revoked.' });
    expect(e.message).toBe('The token was refused by https://console.example: revoked or expired; run fleetdesk login');
    expect(
      errorOf('https://c.example', 400, { message: 'Bad', fields: { 'domains.0.ssl': 'ssl must be…' } }).message,
    ).toBe('Bad\n  domains.0.ssl: ssl must be…');
  });
});

const plan = (counts: Partial<FleetPlan['counts']>): FleetPlan =>
  ({
    _id: '11111111-1111-4111-8111-111111111111',
    planNo: 7,
    counts: { total: 0, pending: 0, change: 0, same: 0, refused: 0, ...counts },
  }) as FleetPlan;

describe('the diff', () => {
  it('prints each difference as terraform does, refusals, the counts and the link', () => {
    const item = {
      domainName: 'example.com',
      changes: [
        { area: 'dns', op: 'add', subject: 'A www.example.com', before: null, after: '192.0.2.1' },
        { area: 'ssl', op: 'change', subject: 'SSL mode', before: 'Full', after: 'Full strict' },
        { area: 'dns', op: 'remove', subject: 'TXT example.com', before: 'v=spf1 -all', after: null },
      ],
    } as FleetItem;
    const refused = { domainName: 'gone.example', reason: 'The console holds no domain of this name' } as FleetItem;
    expect(planText('https://c.example', plan({ change: 1, same: 2, refused: 1 }), [item], [refused])).toBe(
      [
        '~ example.com',
        '    + A www.example.com  192.0.2.1',
        '    ~ SSL mode  Full → Full strict',
        '    - TXT example.com  v=spf1 -all',
        '! gone.example: The console holds no domain of this name',
        '',
        'Plan #7: 1 domain to change, 2 as in the file, 1 refused.',
        'In the console: https://c.example/fleet/11111111-1111-4111-8111-111111111111',
        '',
      ].join('\n'),
    );
    expect(changeLine({ area: 'tls13', op: 'change', subject: 'TLS 1.3', before: 'Off', after: 'On' })).toBe(
      '~ TLS 1.3  Off → On',
    );
  });
  it('exit codes: 0 nothing, 2 changes, 1 a refused domain', () => {
    expect(planExitCode(plan({ same: 3 }))).toBe(0);
    expect(planExitCode(plan({ change: 1 }))).toBe(2);
    expect(planExitCode(plan({ change: 1, refused: 1 }))).toBe(1);
  });
});

describe('the file', () => {
  const domains = [
    {
      domain: 'example.com',
      purge: false,
      ssl: 'strict' as const,
      tls13: 'on' as const,
      firewall: [{ rule: 'Block bots', priority: 1 }],
      redirects: [],
      dns: [{ type: 'A' as const, name: '@', content: '192.0.2.1', proxied: true }],
    },
  ];
  it('exports as YAML that reads back the same and that the committed JSON Schema accepts', () => {
    const text = stateYaml(
      domains,
      [{ domain: 'nozone.example', reason: 'The domain has no Cloudflare zone' }],
      'https://c.example',
    );
    expect(text).toContain('#   nozone.example: The domain has no Cloudflare zone');
    expect(text).toContain('tls13: "on"');
    const back = parseStateText(text);
    expect(back).toEqual({ version: 1, domains });
    const schema = JSON.parse(fs.readFileSync(new URL('../fleet.schema.json', import.meta.url), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate({ version: 1, domains })).toBe(true);
    expect(validate({ version: 1, domains: [{ domain: 'x.example', ssl: 'strictest' }] })).toBe(false);
  });
  it('names each problem by its path', () => {
    expect(() =>
      parseStateText('version: 1\ndomains:\n  - domain: a.example\n    dns:\n      - type: A\n        name: "@"\n'),
    ).toThrow(/domains\.0\.dns\.0\.content: content is required/);
    expect(() => parseStateText('version: [')).toThrow(/not valid YAML/);
    expect(() => parseStateText('a: &a [*a, *a]\n' + 'b: '.concat(Array(200).fill('*a').join(', ')))).toThrow(CliError);
  });
});
