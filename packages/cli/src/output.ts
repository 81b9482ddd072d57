/** Where a command writes: stdout for results, stderr for progress and errors (tests pass their own). */
export type Io = {
  out(text: string): void;
  err(text: string): void;
  /** Progress lines only when someone watches. */
  interactive: boolean;
};

export const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  interactive: !!process.stderr.isTTY,
};

/** A plain table: columns padded to their widest cell (cells cut at 60 characters). */
export function table(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : String(c))))].map((r) =>
    r.map((c) => (c.length > 60 ? `${c.slice(0, 59)}…` : c)),
  );
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return (
    cells
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
