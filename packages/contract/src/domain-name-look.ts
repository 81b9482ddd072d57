// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the package has no types; the apps compile this file too
/// <reference path="./punycode.d.ts" />
import punycode from 'punycode/punycode.js';
import { toAsciiDomain } from './domains.ts';

/**
 * How a domain name looks (issue 42): its ASCII (punycode) and Unicode forms, and a warning when a label could pass
 * for another name, as browsers judge it (UTS #39 "highly restrictive": one script per label, or Latin with the
 * Han-based sets Japanese, Chinese and Korean use; and a label written wholly in Cyrillic letters that look like
 * Latin ones under an ASCII top level). Shared by the API (launch plan, domain answer) and the web forms.
 */
export type DomainNameLook = {
  /** The stored form, lower-case punycode. */
  ascii: string;
  unicode: string;
  /** True when the name has a non-ASCII label (the two forms differ). */
  isIdn: boolean;
  warning: string | null;
};

// The scripts told apart; any other letter counts as "another script". Common (digits, hyphen) and Inherited
// (combining marks) belong to no script of their own.
const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Cherokee',
  'Khmer',
  'Mongolian',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
  'Canadian_Aboriginal',
  'Tifinagh',
  'Nko',
  'Vai',
  'Yi',
] as const;
const SCRIPT_RES = SCRIPTS.map((s) => [s, new RegExp(`^\\p{Script=${s}}$`, 'u')] as const);
const NO_SCRIPT = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
/** The combinations UTS #39's highly restrictive profile allows in one label besides a single script. */
const ALLOWED_SETS: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];
/** Cyrillic letters that look like Latin ones (the set Chromium uses for whole-script look-alikes). */
const CYRILLIC_LIKE_LATIN = /^[асԁеһіјӏорԛѕԝхуъьҽпгѵѡ]+$/u;

const scriptOf = (ch: string): string | null => {
  if (NO_SCRIPT.test(ch)) return null;
  for (const [name, re] of SCRIPT_RES) if (re.test(ch)) return name;
  return 'another script';
};

const readable = (s: string) => s.replace(/_/g, ' ');
const list = (names: string[]) =>
  names.length < 3 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

export const LOOK_ALIKE_MESSAGES = {
  mixed: (label: string, scripts: string[], ascii: string) =>
    `"${label}" mixes ${list(scripts.map(readable))} letters: it may pass for another name, and browsers show it as ${ascii}`,
  wholeScript: (label: string, ascii: string) =>
    `"${label}" is written in Cyrillic letters that look like Latin ones: it may pass for another name, and browsers show it as ${ascii}`,
} as const;

/** The label's look-alike warning, or null. */
function labelWarning(label: string, topIsAscii: boolean, ascii: string): string | null {
  const scripts = new Set<string>();
  for (const ch of label) {
    const s = scriptOf(ch);
    if (s) scripts.add(s);
  }
  if (scripts.size > 1 && !ALLOWED_SETS.some((set) => [...scripts].every((s) => set.includes(s)))) {
    const ordered = [...scripts].sort((a, b) => (a === 'Latin' ? -1 : b === 'Latin' ? 1 : a < b ? -1 : 1));
    return LOOK_ALIKE_MESSAGES.mixed(label, ordered, ascii);
  }
  const letters = label.replace(/[\p{Script=Common}\p{Script=Inherited}]/gu, '');
  if (topIsAscii && scripts.size === 1 && scripts.has('Cyrillic') && CYRILLIC_LIKE_LATIN.test(letters))
    return LOOK_ALIKE_MESSAGES.wholeScript(label, ascii);
  return null;
}

/** The name's forms and warning, or null when it is not a host name the console takes. */
export function domainNameLook(input: string): DomainNameLook | null {
  const ascii = toAsciiDomain(input);
  if (ascii === null) return null;
  const labels = ascii.split('.').map((l) => {
    if (!l.startsWith('xn--')) return l;
    try {
      return punycode.toUnicode(l);
    } catch {
      return l;
    }
  });
  const unicode = labels.join('.');
  const topIsAscii = !/[^\p{ASCII}]/u.test(labels[labels.length - 1]!);
  let warning: string | null = null;
  for (const label of labels) {
    warning = labelWarning(label, topIsAscii, ascii);
    if (warning) break;
  }
  return { ascii, unicode, isIdn: unicode !== ascii, warning };
}

/** The look-alike warning of a stored (ASCII) name, or null. */
export const lookAlikeWarning = (name: string): string | null => domainNameLook(name)?.warning ?? null;
