const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * At most `limit` UTF-16 units (what JS, and Telegram's limits, count), cut between graphemes so that no surrogate
 * pair (nor an emoji sequence) is split, with an ellipsis when cut. A plain `slice` can leave half a pair, which
 * has no UTF-8 form: Telegram refuses such a message.
 */
export function cutText(text: string, limit: number, ellipsis = '…'): string {
  if (text.length <= limit) return text;
  const room = limit - ellipsis.length;
  let out = '';
  for (const { segment } of graphemes.segment(text)) {
    if (out.length + segment.length > room) break;
    out += segment;
  }
  return `${out}${ellipsis}`;
}
