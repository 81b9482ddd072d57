import type { IncomingMessage } from 'node:http';

/**
 * A request body as text, refused past `maxBytes`: the rest is drained (not kept) so that the simulator can
 * still answer, as a real server answers 413 rather than dropping the connection.
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  tooLarge: () => Error = () => new Error('body too large'),
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > maxBytes) {
        refused = true;
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
