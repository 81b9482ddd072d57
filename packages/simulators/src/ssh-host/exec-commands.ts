import fs from 'node:fs/promises';
import { normaliseRemotePath, toLocalPath } from './remote-path.ts';

export type ExecResult = { code: number; stdout: string; stderr: string };

type Token = { op: ';' | '&&' | '||' } | { word: string };

/**
 * Splits a command line as sh would for the little the product sends: words, '…' and "…" quoting, backslash escapes,
 * and the list operators ; && ||. Pipes, redirections and substitutions are refused rather than misread.
 */
export function tokenizeShell(line: string): Token[] | string {
  const tokens: Token[] = [];
  let word = '';
  let inWord = false;
  const flush = () => {
    if (inWord) tokens.push({ word });
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return 'unterminated quoted string';
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (ch === '"') {
      inWord = true;
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        const c = line[j] as string;
        if (c === '$' || c === '`') return 'substitutions are not supported by the test host';
        if (c === '\\' && j + 1 < line.length && '"\\$`\n'.includes(line[j + 1] as string)) {
          j++;
          word += line[j];
        } else {
          word += c;
        }
      }
      if (j >= line.length) return 'unterminated quoted string';
      i = j;
    } else if (ch === '\\') {
      if (i + 1 < line.length) word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      flush();
    } else if (ch === ';') {
      flush();
      tokens.push({ op: ';' });
    } else if ((ch === '&' || ch === '|') && line[i + 1] === ch) {
      flush();
      tokens.push({ op: ch === '&' ? '&&' : '||' });
      i++;
    } else if ('|&<>$`(){}'.includes(ch)) {
      return `"${ch}" is not supported by the test host`;
    } else {
      word += ch;
      inWord = true;
    }
  }
  flush();
  return tokens;
}

async function exists(local: string): Promise<'dir' | 'file' | null> {
  try {
    const st = await fs.stat(local);
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

function splitOptions(args: string[]): { flags: Set<string>; operands: string[] } {
  const flags = new Set<string>();
  const operands: string[] = [];
  let optionsDone = false;
  for (const arg of args) {
    if (!optionsDone && arg === '--') optionsDone = true;
    else if (!optionsDone && arg.startsWith('-') && arg.length > 1) for (const f of arg.slice(1)) flags.add(f);
    else operands.push(arg);
  }
  return { flags, operands };
}

/** POSIX `df -P` output computed from the real filesystem under rootDir, so free space is plausible and changes. */
async function df(rootDir: string, args: string[]): Promise<ExecResult> {
  const { flags, operands } = splitOptions(args);
  const unknown = [...flags].filter((f) => f !== 'P' && f !== 'k');
  if (unknown.length) return { code: 1, stdout: '', stderr: `df: invalid option -- '${unknown[0]}'\n` };
  const paths = operands.length ? operands : ['/'];
  const lines: string[] = [];
  let stderr = '';
  let code = 0;
  for (const remote of paths) {
    const local = toLocalPath(rootDir, remote);
    if (!(await exists(local))) {
      stderr += `df: ${remote}: No such file or directory\n`;
      code = 1;
      continue;
    }
    const st = await fs.statfs(local);
    const kib = (n: number) => Math.floor((n * st.bsize) / 1024);
    const total = kib(st.blocks);
    const used = kib(st.blocks - st.bfree);
    const available = kib(st.bavail);
    const capacity = used + available === 0 ? 0 : Math.ceil((used * 100) / (used + available));
    lines.push(
      `fleetdesk-sim ${String(total).padStart(14)} ${String(used).padStart(9)} ${String(available).padStart(9)} ${String(capacity).padStart(7)}% /`,
    );
  }
  const stdout = lines.length
    ? `Filesystem     1024-blocks      Used Available Capacity Mounted on\n${lines.join('\n')}\n`
    : '';
  return { code, stdout, stderr };
}

async function test(rootDir: string, args: string[]): Promise<ExecResult> {
  const [flag, remote] = args;
  if (args.length !== 2 || remote === undefined || !['-d', '-e', '-f'].includes(flag ?? '')) {
    return { code: 2, stdout: '', stderr: 'test: only "test -d|-e|-f PATH" is supported by the test host\n' };
  }
  const kind = await exists(toLocalPath(rootDir, remote));
  const ok = flag === '-e' ? kind !== null : flag === '-d' ? kind === 'dir' : kind === 'file';
  return { code: ok ? 0 : 1, stdout: '', stderr: '' };
}

async function mkdir(rootDir: string, args: string[]): Promise<ExecResult> {
  const { flags, operands } = splitOptions(args);
  if (!operands.length) return { code: 1, stdout: '', stderr: 'mkdir: missing operand\n' };
  const parents = flags.has('p');
  let stderr = '';
  for (const remote of operands) {
    try {
      await fs.mkdir(toLocalPath(rootDir, remote), { recursive: parents });
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'EEXIST' ? 'File exists' : 'No such file or directory';
      stderr += `mkdir: cannot create directory '${remote}': ${reason}\n`;
    }
  }
  return { code: stderr ? 1 : 0, stdout: '', stderr };
}

async function runSimple(rootDir: string, words: string[]): Promise<ExecResult> {
  const [name, ...args] = words;
  switch (name) {
    case 'df':
      return df(rootDir, args);
    case 'test':
      return test(rootDir, args);
    case 'mkdir':
      return mkdir(rootDir, args);
    case 'echo': {
      const noNewline = args[0] === '-n';
      const text = (noNewline ? args.slice(1) : args).join(' ');
      return { code: 0, stdout: noNewline ? text : `${text}\n`, stderr: '' };
    }
    case 'true':
      return { code: 0, stdout: '', stderr: '' };
    case 'sleep': {
      // Lets tests of command timeouts hang a command; capped so a forgotten test cannot stall for long.
      const secs = Number(args[0]);
      if (!Number.isFinite(secs) || secs < 0) return { code: 1, stdout: '', stderr: 'sleep: invalid time interval\n' };
      await new Promise((resolve) => setTimeout(resolve, Math.min(secs, 60) * 1000).unref());
      return { code: 0, stdout: '', stderr: '' };
    }
    case 'false':
      return { code: 1, stdout: '', stderr: '' };
    case 'pwd':
      return { code: 0, stdout: `${normaliseRemotePath('.')}\n`, stderr: '' };
    default:
      return { code: 127, stdout: '', stderr: `sh: 1: ${name ?? ''}: not found\n` };
  }
}

/** Runs a command line against rootDir, honouring ; && || between simple commands. */
export async function runCommand(rootDir: string, line: string): Promise<ExecResult> {
  const tokens = tokenizeShell(line);
  if (typeof tokens === 'string') return { code: 2, stdout: '', stderr: `sh: 1: ${tokens}\n` };
  const result: ExecResult = { code: 0, stdout: '', stderr: '' };
  let words: string[] = [];
  let skip = false;
  const runPending = async () => {
    if (!words.length) return;
    if (!skip) {
      const r = await runSimple(rootDir, words);
      result.code = r.code;
      result.stdout += r.stdout;
      result.stderr += r.stderr;
    }
    words = [];
  };
  for (const token of tokens) {
    if ('word' in token) {
      words.push(token.word);
      continue;
    }
    await runPending();
    skip = token.op === '&&' ? result.code !== 0 : token.op === '||' ? result.code === 0 : false;
  }
  await runPending();
  return result;
}
