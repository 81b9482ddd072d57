export { startTelegramSim } from './server.ts';
export type { TelegramBot, TelegramSim, TelegramSimMessage, TelegramSimOptions } from './server.ts';
