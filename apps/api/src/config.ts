import { config as loadDotenv } from 'dotenv';
import { z } from 'zod';
import path from 'node:path';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const boolish = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  APP_SECRET_KEY: z
    .string()
    .min(32, 'must be at least 32 characters (64 hex characters or 44 base64 characters recommended)')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  ADMIN_USERNAME: z.string().trim().min(1).max(200).default('admin'),
  ADMIN_PASSWORD: z
    .string()
    .min(10, 'must be at least 10 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(12),
  SESSION_IDLE_MINUTES: z.coerce
    .number()
    .positive()
    .max(60 * 24 * 30)
    .default(120),
  LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  LOGIN_LOCK_MINUTES: z.coerce
    .number()
    .positive()
    .max(24 * 60)
    .default(15),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  SSH_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(10),
  CONTENT_UPLOAD_MAX_FILE_MB: z.coerce.number().positive().max(100_000).default(512),
  CONTENT_UPLOAD_MAX_FILES: z.coerce.number().int().min(1).max(100_000).default(1000),
  CONTENT_EDIT_MAX_KB: z.coerce.number().int().min(1).max(100_000).default(5120),
  DEMO: boolish,
  WEB_DIST: z.string().optional(),
  PROXY_CHECK_URL: z.url().default('https://www.cloudflare.com/cdn-cgi/trace'),
  CLOUDFLARE_API_URL: z.url().default('https://api.cloudflare.com/client/v4'),
  CLOUDFLARE_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
  CLOUDFLARE_BUDGET_PER_5_MIN: z.coerce.number().int().min(1).max(100_000).default(1200),
});

export type Config = Omit<z.infer<typeof ConfigSchema>, 'DATA_DIR'> & { DATA_DIR: string };

export class ConfigError extends Error {}

/** The only reader of process.env. Fails with every bad variable named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, opts: { dotenv?: boolean } = {}): Config {
  if (opts.dotenv !== false) loadDotenv({ quiet: true });
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const dataDir = path.resolve(c.DATA_DIR ?? (c.DEMO ? './data/demo' : './data'));
  return { ...c, DATA_DIR: dataDir };
}
