import { parseArgs, type ParseArgsConfig } from 'node:util';
import { fleetStateJsonSchema, toAsciiDomain, type DomainHealth, type Job } from '@fleetdesk/contract';
import { apiClient, must, type Api, type Query } from './client.ts';
import { checkToken, loadConnection, normalizeUrl, saveConnection, type Connection } from './config.ts';
import { CliError } from './errors.ts';
import { json, processIo, table, type Io } from './output.ts';
import { apply, exportState, plan } from './state.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;
type Run = (a: { values: Values; positionals: string[]; io: Io; env: NodeJS.ProcessEnv }) => Promise<number>;
type Command = { usage: string; summary: string; options?: Options; positionals?: number; run: Run };

const FILTER_OPTIONS: Options = {
  brand: { type: 'string' },
  status: { type: 'string' },
  health: { type: 'string' },
  search: { type: 'string' },
};
const JOB_END = ['completed', 'completed_with_failures', 'failed', 'cancelled'];
/** `jobs watch`: 0 completed, 3 completed with failures, 1 failed or cancelled. */
export const jobExitCode = (state: string) => (state === 'completed' ? 0 : state === 'completed_with_failures' ? 3 : 1);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const connect = (env: NodeJS.ProcessEnv) => {
  const conn = loadConnection(env);
  return { conn, api: apiClient(conn) };
};

/** A brand given by name (or id), as the list's filter wants it: its id. */
async function brandId(api: Api, origin: string, brand: string): Promise<string> {
  if (/^[0-9a-f-]{36}$/i.test(brand) || brand === 'none') return brand;
  const res = await must(origin, api.GET('/api/brands', { params: { query: { search: brand } } }));
  const found = (res.items as { _id: string; name: string }[]).find(
    (b) => b.name.toLowerCase() === brand.toLowerCase(),
  );
  if (!found) throw new CliError(`No brand is named ${brand}`);
  return found._id;
}
type Filter = Pick<Query<'/api/domains'>, 'brandId' | 'status' | 'health' | 'search'>;
async function filterOf(api: Api, origin: string, v: Values): Promise<Filter> {
  return {
    brandId: typeof v.brand === 'string' ? await brandId(api, origin, v.brand) : undefined,
    // Checked by the server, which names what it takes.
    status: v.status as Filter['status'],
    health: v.health as Filter['health'],
    search: v.search as string | undefined,
  };
}
const pageOf = (v: Values) => {
  const n = v.page === undefined ? 1 : Number(v.page);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new CliError('--page must be a whole number from 1');
  return n;
};
const jobLine = (j: Job) => {
  const p = j.progress;
  const count = p?.done !== undefined ? ` ${p.done}${p.total ? `/${p.total}` : ''}${p.unit ? ` ${p.unit}` : ''}` : '';
  return `#${j.jobNo} ${j.kindLabel}: ${j.stateText}${count}${p?.message ? ` · ${p.message}` : ''}`;
};

export const COMMANDS: Record<string, Command> = {
  login: {
    usage: 'fleetdesk login --url https://console.example --token fdt_…',
    summary: 'Check a personal API token against the console and keep it (mode 0600)',
    options: { url: { type: 'string' }, token: { type: 'string' } },
    async run({ values, io, env }) {
      const url = (values.url as string | undefined) ?? env.FLEETDESK_URL;
      const token = (values.token as string | undefined) ?? env.FLEETDESK_TOKEN;
      if (!url || !token) throw new CliError('login needs --url and --token (or FLEETDESK_URL and FLEETDESK_TOKEN)');
      const conn: Connection = { url: normalizeUrl(url), token: checkToken(token) };
      const me = await must(conn.url, apiClient(conn).GET('/auth/me'));
      const file = saveConnection(conn, env);
      if (values.json) io.out(json({ url: conn.url, username: me.user.username, config: file }));
      io.err(`Logged in to ${conn.url} as ${me.user.username}; kept in ${file}\n`);
      return 0;
    },
  },
  whoami: {
    usage: 'fleetdesk whoami [--json]',
    summary: 'Who the token acts as, and its rules',
    async run({ values, io, env }) {
      const { conn, api } = connect(env);
      const me = await must(conn.url, api.GET('/auth/me'));
      if (values.json) io.out(json({ url: conn.url, ...me }));
      else io.out(`${me.user.username} (${me.user.name}) on ${conn.url}\nRules: ${me.rules.join(', ') || 'none'}\n`);
      return 0;
    },
  },
  'domains ls': {
    usage:
      'fleetdesk domains ls [--brand NAME] [--status active|inactive] [--health failing|…] [--search TEXT] [--page N] [--json]',
    summary: "The domains list, with the list's own filters",
    options: { ...FILTER_OPTIONS, page: { type: 'string' } },
    async run({ values, io, env }) {
      const { conn, api } = connect(env);
      const query: Query<'/api/domains'> = {
        ...(await filterOf(api, conn.url, values)),
        page: pageOf(values),
        view: 'list',
      };
      const res = await must(conn.url, api.GET('/api/domains', { params: { query: query } }));
      const items = res.items as {
        domainName: string;
        status: string;
        brand?: { name: string } | null;
        server?: { IPAddress: string } | null;
        cloud?: { email: string } | null;
        healthState?: string | null;
      }[];
      if (values.json) io.out(json(res));
      else {
        io.out(
          table(
            ['DOMAIN', 'STATUS', 'BRAND', 'SERVER', 'CLOUD', 'HEALTH'],
            items.map((d) => [
              d.domainName,
              d.status,
              d.brand?.name,
              d.server?.IPAddress,
              d.cloud?.email,
              d.healthState ?? 'unchecked',
            ]),
          ),
        );
        io.err(`${items.length} of ${res.itemsCount} domains (page ${query.page ?? 1})\n`);
      }
      return 0;
    },
  },
  'jobs ls': {
    usage: 'fleetdesk jobs ls [--state active|queued|running|completed|failed|…] [--kind KIND] [--page N] [--json]',
    summary: 'The Jobs screen',
    options: { state: { type: 'string' }, kind: { type: 'string' }, page: { type: 'string' } },
    async run({ values, io, env }) {
      const { conn, api } = connect(env);
      type Q = Query<'/api/jobs'>;
      const query: Q = { state: values.state as Q['state'], kind: values.kind as Q['kind'], page: pageOf(values) };
      const res = await must(conn.url, api.GET('/api/jobs', { params: { query: query } }));
      const items = res.items as Job[];
      if (values.json) io.out(json(res));
      else
        io.out(
          table(
            ['ID', 'NO', 'KIND', 'STATE', 'CREATED BY', 'CREATED'],
            items.map((j) => [j._id, j.jobNo, j.kindLabel, j.stateText, j.createdBy, j.createdAt]),
          ),
        );
      return 0;
    },
  },
  'jobs watch': {
    usage: 'fleetdesk jobs watch <job id> [--interval SECONDS] [--timeout MINUTES] [--json]',
    summary: 'Follow a job to its end; exit 0 completed, 3 completed with failures, 1 failed or cancelled',
    options: { interval: { type: 'string' }, timeout: { type: 'string' } },
    positionals: 1,
    async run({ values, positionals, io, env }) {
      const { conn, api } = connect(env);
      const interval = Number(values.interval ?? 2);
      const minutes = Number(values.timeout ?? 24 * 60);
      if (!(interval >= 0.5 && interval <= 60)) throw new CliError('--interval must be between 0.5 and 60 seconds');
      if (!(minutes > 0 && minutes <= 7 * 24 * 60)) throw new CliError('--timeout must be between 1 minute and 7 days');
      const until = Date.now() + minutes * 60_000;
      let last = '';
      for (;;) {
        const job = (await must(
          conn.url,
          api.GET('/api/jobs/{id}', { params: { path: { id: positionals[0]! } } }),
        )) as Job;
        const line = jobLine(job);
        if (line !== last && !values.json) io.err(`${line}\n`);
        last = line;
        if (JOB_END.includes(job.state)) {
          if (values.json) io.out(json(job));
          else if (job.summary) io.out(`${job.summary}\n`);
          return jobExitCode(job.state);
        }
        if (Date.now() > until) throw new CliError(`Job #${job.jobNo} is still ${job.state} after ${minutes} minutes`);
        await sleep(interval * 1000);
      }
    },
  },
  health: {
    usage: 'fleetdesk health <domain> [--json]',
    summary: "A domain's health checks",
    positionals: 1,
    async run({ values, positionals, io, env }) {
      const { conn, api } = connect(env);
      const name = toAsciiDomain(positionals[0]!) ?? positionals[0]!.toLowerCase();
      const found = await must(
        conn.url,
        api.GET('/api/domains', { params: { query: { search: name, view: 'list' } } }),
      );
      const d = (found.items as { _id: string; domainName: string }[]).find((x) => x.domainName === name);
      if (!d) throw new CliError(`The console holds no domain named ${name}`);
      const h = (await must(
        conn.url,
        api.GET('/api/domains/{id}/health', { params: { path: { id: d._id } } }),
      )) as DomainHealth;
      if (values.json) io.out(json(h));
      else {
        io.out(
          table(
            ['CHECK', 'STATE', 'OBSERVED', 'EXPECTED', 'WHY'],
            h.checks.map((c) => [`${c.plane}: ${c.label}`, c.state, c.observed, c.expected, c.reason]),
          ),
        );
        io.err(
          `${name}: ${h.state ?? 'never checked'}${h.problems ? `, ${h.problems} problem${h.problems === 1 ? '' : 's'}` : ''}\n`,
        );
      }
      return 0;
    },
  },
  export: {
    usage: 'fleetdesk export [--brand NAME] [--status …] [--health …] [--search TEXT] [--output fleet.yaml] [--json]',
    summary: "Write the selected domains' state as a desired-state file (YAML)",
    options: { ...FILTER_OPTIONS, output: { type: 'string', short: 'o' } },
    async run({ values, io, env }) {
      const { conn, api } = connect(env);
      const filter = await filterOf(api, conn.url, values);
      return exportState(
        { api, origin: conn.url, io, json: !!values.json },
        filter,
        values.output as string | undefined,
      );
    },
  },
  plan: {
    usage: 'fleetdesk plan <fleet.yaml> [--json]',
    summary: 'The difference against the console, as a fleet plan; exit 0 nothing to change, 2 changes, 1 error',
    positionals: 1,
    async run({ values, positionals, io, env }) {
      const { conn, api } = connect(env);
      return plan({ api, origin: conn.url, io, json: !!values.json }, positionals[0]!);
    },
  },
  apply: {
    usage: 'fleetdesk apply <fleet.yaml> [--max-changes N] [--yes] [--json]',
    summary: 'Plan the file and run the plan (Ctrl-C pauses it); refused past --max-changes domains',
    options: { 'max-changes': { type: 'string' }, yes: { type: 'boolean', short: 'y' } },
    positionals: 1,
    async run({ values, positionals, io, env }) {
      const raw = values['max-changes'];
      const maxChanges = raw === undefined ? undefined : Number(raw);
      if (maxChanges !== undefined && !(Number.isInteger(maxChanges) && maxChanges >= 0 && maxChanges <= 1_000_000))
        throw new CliError('--max-changes must be a whole number, 0 or more');
      const { conn, api } = connect(env);
      return apply({ api, origin: conn.url, io, json: !!values.json }, positionals[0]!, {
        maxChanges,
        yes: !!values.yes,
      });
    },
  },
  schema: {
    usage: 'fleetdesk schema',
    summary: "The desired-state file's JSON Schema (for editors)",
    async run({ io }) {
      io.out(json(fleetStateJsonSchema()));
      return 0;
    },
  },
};

export function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return (
    'Fleetdesk command-line client: the fleet as code on a personal API token.\n\n' +
    `Commands:\n${lines.join('\n')}\n\n` +
    'Every command takes --json (JSON instead of a table or a diff) and --help.\n' +
    'The connection: fleetdesk login, or FLEETDESK_URL and FLEETDESK_TOKEN.\n'
  );
}

/** The command the arguments name and its parsed options; a CliError (exit 1) for anything it does not take. */
export function parseCommand(
  argv: string[],
): { name: string; command: Command; values: Values; positionals: string[] } | 'help' {
  const words = argv.filter((a) => !a.startsWith('-'));
  if (!argv.length || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') return 'help';
  const name = [`${words[0]} ${words[1]}`, words[0]].find((n) => n && COMMANDS[n]);
  if (!name) throw new CliError(`Unknown command "${words.slice(0, 2).join(' ')}"; fleetdesk --help lists them`);
  const command = COMMANDS[name]!;
  const rest = [...argv];
  for (const w of name.split(' ')) rest.splice(rest.indexOf(w), 1);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new CliError(`${(err as Error).message}\nUsage: ${command.usage}`);
  }
  const values = parsed.values as Values;
  if (!values.help && parsed.positionals.length !== (command.positionals ?? 0))
    throw new CliError(`Usage: ${command.usage}`);
  return { name, command, values, positionals: parsed.positionals };
}

/** Runs the client; the exit code. Never prints the token; errors are one clear message. */
export async function main(argv: string[], io: Io = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const parsed = parseCommand(argv);
    if (parsed === 'help') {
      io.out(usage());
      return 0;
    }
    if (parsed.values.help) {
      io.out(`Usage: ${parsed.command.usage}\n${parsed.command.summary}\n`);
      return 0;
    }
    return await parsed.command.run({ values: parsed.values, positionals: parsed.positionals, io, env });
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`fleetdesk: ${err.message}\n`);
      return err.exitCode;
    }
    io.err(`fleetdesk: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
