/**
 * Summarises a V8 CPU profile (.cpuprofile, from `node --cpu-prof`): self time by package or source area and by
 * function, as a share of the samples. bench:lists writes one for our API with `--cpu-prof DIR`.
 *
 *   npx tsx bench/profile-summary.ts FILE.cpuprofile [--top 25]
 */
import fs from 'node:fs';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

/** Where a frame's code lives: a package (node_modules/<pkg>), our source area, Node itself, or V8's own work. */
export function areaOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  const src = /\/(apps\/[^/]+\/src\/(?:[^/]+\/)?[^/]+|packages\/[^/]+\/src\/[^/]+|bench\/[^/]+)/.exec(url);
  return src ? src[1]! : url;
}

export function summarise(p: Profile, top: number): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const area = areaOf(f.url, f.functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const fn = `${f.functionName || '(anonymous)'} ${area}:${f.lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
  }
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  return [
    `${(total / 1e6).toFixed(1)} s of samples`,
    'self time by area (package, source folder, node internals, V8):',
    rows(areas),
    'self time by function:',
    rows(fns),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: tsx bench/profile-summary.ts FILE.cpuprofile [--top N]');
  const i = process.argv.indexOf('--top');
  const top = i > 0 ? Number(process.argv[i + 1]) : 25;
  process.stdout.write(`${summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, top)}\n`);
}
