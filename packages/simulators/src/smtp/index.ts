export { startSmtpCatcher } from './catcher.ts';
export type { CaughtMail, SmtpCatcher, SmtpCatcherOptions } from './catcher.ts';
