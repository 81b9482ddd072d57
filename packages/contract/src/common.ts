import { z } from 'zod';
import { NAME_MAX, PAGE_SIZE, SEARCH_MAX, SECRET_MASK } from './constants.ts';

/**
 * An id: a UUID, canonicalised to lower case here, once, so that the audit trail, the self-delete guard and
 * every comparison of ids see one form whatever case the client sent (docs/decisions/016).
 */
export const IdSchema = z.uuid({ message: 'Must be a valid id' }).toLowerCase();

export const NUL_MESSAGE = 'Must not contain a NUL character';
/**
 * Text never carries a NUL (U+0000): PostgreSQL cannot store it and C-string consumers cut at it. Refused with
 * a 400 in every shared text schema.
 */
export const hasNoNul = (s: string) => !s.includes('\u0000');
/** No `user:pass@` in an address: a credential there would be shown and logged with it (decision 058). */
export const hasNoUrlCredentials = (s: string) => {
  try {
    const u = new URL(s);
    return !u.username && !u.password;
  } catch {
    return true;
  }
};
export const urlCredentialsMessage = (label: string) => `${label} must not contain a user name or password`;
export const IdParamsSchema = z.object({ id: IdSchema });

/** A required, trimmed, bounded string. */
export const requiredText = (max = NAME_MAX, label = 'This field') =>
  z
    .string({ message: `${label} is required` })
    .trim()
    .min(1, { message: `${label} is required` })
    .max(max, { message: `${label} must be at most ${max} characters` })
    .refine(hasNoNul, { message: NUL_MESSAGE });

/** An optional trimmed string; empty or null becomes null. */
export const optionalText = (max = NAME_MAX) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
    z
      .string()
      .trim()
      .max(max, { message: `Must be at most ${max} characters` })
      .refine(hasNoNul, { message: NUL_MESSAGE })
      .nullable()
      .optional(),
  );

/** A search or filter text: trimmed, bounded, without NUL; absent is ''. */
export const searchText = (max = SEARCH_MAX) =>
  z
    .string({ message: 'search must be text' })
    .trim()
    .max(max, { message: `search must be at most ${max} characters` })
    .refine(hasNoNul, { message: NUL_MESSAGE })
    .optional()
    .default('');

/**
 * A secret on input: the mask, an empty string or an absent field keep the stored value (undefined);
 * null clears it; any other string replaces it.
 */
export const secretInput = (max = 4096) =>
  z.preprocess(
    (v) => (v === SECRET_MASK || v === '' ? undefined : v),
    z
      .string()
      .max(max, { message: `Must be at most ${max} characters` })
      .refine(hasNoNul, { message: NUL_MESSAGE })
      .nullable()
      .optional(),
  );

/**
 * Credentials that travel in an HTTP header or a URL (issue 26). A token or key is printable ASCII without spaces:
 * a Cyrillic letter, a line break or a U+2028 pasted with it could never be sent. A username has the same rule and
 * no colon (it ends the user part of Basic auth). A password may hold any letter, but no control character or
 * line separator.
 */
export const TOKEN_CHARS = /^[\x21-\x7E]*$/;
export const USER_CHARS = /^[\x21-\x39\x3B-\x7E]*$/;
// eslint-disable-next-line no-control-regex
export const PASSWORD_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
export const CREDENTIAL_MESSAGES = {
  token:
    'Must be letters, digits and symbols only (printable ASCII, no spaces): check for a stray space, line break or non-Latin letter',
  user: 'Must be letters, digits and symbols only (printable ASCII, no spaces or colon)',
  password: 'Must not contain line breaks or other control characters',
};
export const isTokenSafe = (v: string) => TOKEN_CHARS.test(v);
export const isUserSafe = (v: string) => USER_CHARS.test(v);
export const isPasswordSafe = (v: string) => !PASSWORD_FORBIDDEN.test(v);

/** A secret token or key sent in a header or URL: secretInput, printable ASCII only. */
export const secretToken = (max = 4096) =>
  z.preprocess(
    (v) => (v === SECRET_MASK || v === '' ? undefined : v),
    z
      .string()
      .max(max, { message: `Must be at most ${max} characters` })
      .refine(hasNoNul, { message: NUL_MESSAGE })
      .refine(isTokenSafe, { message: CREDENTIAL_MESSAGES.token })
      .nullable()
      .optional(),
  );

/** A password sent in a header or URL: secretInput without control characters or line separators. */
export const secretPassword = (max = 4096) =>
  z.preprocess(
    (v) => (v === SECRET_MASK || v === '' ? undefined : v),
    z
      .string()
      .max(max, { message: `Must be at most ${max} characters` })
      .refine(hasNoNul, { message: NUL_MESSAGE })
      .refine(isPasswordSafe, { message: CREDENTIAL_MESSAGES.password })
      .nullable()
      .optional(),
  );

/** A secret on output: the mask when one is stored, else null. */
export const secretOutput = () => z.union([z.literal(SECRET_MASK), z.null()]);

export const RevealInputSchema = z.object({
  field: z
    .string({ message: 'field is required' })
    .trim()
    .min(1, 'field is required')
    .max(100)
    .refine(hasNoNul, { message: NUL_MESSAGE }),
});
export const RevealResultSchema = z.object({ field: z.string(), value: z.string().nullable() });

/** A reference to another entity by id; '' and null clear it. */
export const optionalRef = () => z.preprocess((v) => (v === '' ? null : v), IdSchema.nullable().optional());

/** Booleans arrive as true/false or as the strings "true"/"false" (the spec's forms send strings). */
export const booleanish = () =>
  z.preprocess(
    (v) => (v === 'true' ? true : v === 'false' ? false : v),
    z.boolean({ message: 'Must be true or false' }),
  );

export const ListQuerySchema = z.object({
  page: z.coerce.number({ message: 'page must be a whole number' }).int().min(1).max(1_000_000).default(1),
  search: searchText(),
});
export type ListQuery = z.infer<typeof ListQuerySchema>;

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.object({ items: z.array(item), itemsCount: z.number().int() }) });

export const dataOf = <T extends z.ZodType>(item: T) => z.object({ data: item });

export type ListResult<T> = { items: T[]; itemsCount: number };

export const ErrorEnvelopeSchema = z.object({
  message: z.string(),
  code: z.string(),
  fields: z.record(z.string(), z.string()).optional(),
  requestId: z.string().optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

export const pageCount = (itemsCount: number, pageSize = PAGE_SIZE) => Math.max(1, Math.ceil(itemsCount / pageSize));

/** A required http or https URL of at most `max` characters: "<label> must be an http or https URL". */
export const httpUrlText = (label: string, max = 2000) =>
  requiredText(max, label).refine(
    (v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: `${label} must be an http or https URL` },
  );
