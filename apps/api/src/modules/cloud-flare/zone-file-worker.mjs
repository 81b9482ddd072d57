// Reads uploaded zone files on a thread of its own (decision 061), so a large or hostile file never holds up the
// API thread. Plain JavaScript that loads the reader through tsx, the same way under tsx, vitest and plain node.
// The protocol (zone-file-reader.ts):
//   { id, bytes: ArrayBuffer, zoneName } → { id, ok: true, result: ParsedZoneFile }
//                                        | { id, ok: false, error: { message, status?, code?, fields? } }
import { parentPort } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

if (!parentPort) throw new Error('zone-file-worker.mjs runs as a worker thread');
const port = parentPort;
const { parseZoneFile } = await tsImport('./zone-file-read.ts', import.meta.url);

port.on('message', async ({ id, bytes, zoneName }) => {
  try {
    const result = await parseZoneFile([Buffer.from(bytes)], zoneName);
    port.postMessage({ id, ok: true, result });
  } catch (err) {
    const e = err && typeof err === 'object' ? err : {};
    port.postMessage({
      id,
      ok: false,
      error: { message: String(e.message ?? err), status: e.status, code: e.code, fields: e.fields },
    });
  }
});
port.postMessage({ ready: true });
