export { createYandexWebmasterClient, YandexApiError } from './yandex-webmaster-client.ts';
export type {
  WebmasterCredentials,
  YandexWebmasterClient,
  YandexWebmasterClientOptions,
} from './yandex-webmaster-client.ts';
