/** Where the collector listens and the variables holding its tokens: their own module so the CLI's help can name them. */
import { COLLECTOR_TOKENS_ENV } from '../platform/auth/token-env.ts';

/** OTLP/HTTP's default port. */
export const DEFAULT_PORT = 4318;
/** Loopback by default: exposing the collector on a network is a decision, not an accident. */
export const DEFAULT_HOST = '127.0.0.1';
export const TOKENS_ENV = COLLECTOR_TOKENS_ENV;
export const METRICS_TOKEN_ENV = 'TOOLTRAIL_COLLECTOR_METRICS_TOKEN';
