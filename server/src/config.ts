import {
  ADMIN_TOKEN_PREFIX,
  APP_SECRET_PREFIX,
  DEFAULT_DEV_KEY_PREFIX,
  WEBHOOK_SECRET_PREFIX,
} from './auth/secrets';
import { closestField } from './closest-field';
import { originOf } from './http/origin';
import { EVENT_SETTING_NAMES, eventSettingsFromEnv, type EventSettings } from './events/settings';
import { integerSetting } from './integer-setting';
import { OutboundPolicy } from './outbound/policy';
import { KEY_CACHE_TTL_MS } from './store/db/defaults';
import { withoutPassword } from './without-password';

/** Settings the server reads from its environment (the CLI's flags override host, port and database). */
export interface ServerConfig {
  /**
   * Developer API requests allowed per key per fixed window: counted in Redis (shared by every instance) when
   * `redisUrl` is set, else in each server instance.
   */
  rateLimit: { max: number; windowMs: number };
  /**
   * `DEVDATA_REDIS_URL`: the Redis that several instances share for the request limit, live notification
   * fan-out and key revocations; null for none (fan-out and revocations then go through PostgreSQL
   * LISTEN/NOTIFY, or stay in the one process on SQLite).
   */
  redisUrl: string | null;
  /** How long a developer key read from the database is trusted before it is read again. */
  keyCacheTtlMs: number;
  /**
   * `DEVDATA_KEY_PREFIX`: what the developer keys made from now on start with (default svc_dev_). Keys are found
   * by the hash of the whole key, so those made under an earlier prefix keep working.
   */
  keyPrefix: string;
  /**
   * `DEVDATA_RESPONSE_CACHE_MB`: room for list and record answers kept while the data is unchanged (SQLite
   * only; 0 keeps none), in MB of JSON.
   */
  responseCacheMb: number;
  /** Direct notifications allowed per app per user per clock hour. */
  directNotificationsPerHour: number;
  /** How long a proactive webhook call may take before it counts as a timeout. */
  webhookTimeoutMs: number;
  /** Largest webhook reply read; a bigger one is abandoned as soon as it passes this size. */
  webhookMaxReplyBytes: number;
  /** Webhook calls in flight at once (per server instance); the rest wait in an in-process queue. */
  webhookConcurrency: number;
  /** Of those, the most one app may hold, so a hanging or slow webhook cannot delay the other apps. */
  webhookConcurrencyPerApp: number;
  /**
   * `DEVDATA_WEBHOOK_BACKLOG_MB`: the request bodies of one app's webhook calls waiting for a slot; a call that
   * would go past it is not made but recorded as `backlog_full`. Per app, so a slow webhook never refuses
   * another app's calls; apps are made by the admin, so their number bounds the total.
   */
  webhookBacklogBytes: number;
  /** Failures in a row after which a webhook URL is paused, and for how long (per server instance). */
  breakerFailures: number;
  breakerCooldownMs: number;
  /** One proactive notification per user per app per this window, counted from the last successful push. */
  proactiveWindowMs: number;
  /** OpenAI-compatible endpoint that generates proactive texts; null pushes the filled prompt as is. */
  llmBaseUrl: string | null;
  llmModel: string;
  llmApiKey: string | null;
  llmTimeoutMs: number;
  /**
   * Development allowance (`DEVDATA_ALLOW_LOOPBACK_WEBHOOKS=1`): webhooks and the push URL may also target
   * loopback (127.0.0.0/8, ::1), over http or https. Off, they must be https to public addresses.
   */
  allowLoopbackWebhooks: boolean;
  /** ntfy-compatible URL every notification is also POSTed to (plain-text body, Title header); null for none. */
  pushUrl: string | null;
  /** Interval of the comment heartbeat on notification streams. */
  sseHeartbeatMs: number;
  /**
   * How often the keys of open notification streams are read again: what ends a stream whose key was revoked
   * on another instance while this one's link to the others was down (its broadcast missed).
   */
  streamKeyRecheckMs: number;
  /** Mean event-loop delay past which requests are shed with 503 (0: never shed), sampled every interval. */
  maxEventLoopDelayMs: number;
  loadSampleIntervalMs: number;
  /** Event webhook delivery (`DEVDATA_EVENT_*`; see events/settings.ts). */
  events: EventSettings;
  /**
   * `DEVDATA_MCP_ALLOWED_ORIGINS`: the origins (`https://chat.example.com`) of the browser pages whose requests
   * /mcp takes, besides the server's own address, as a browser sends them in `Origin`; none by default. A request
   * without an `Origin` (a client that is not a browser page) needs none.
   */
  mcpAllowedOrigins: readonly string[];
}

export const DIRECT_NOTIFICATIONS_PER_HOUR = 10;

/** Every DEVDATA_* variable devdata-server reads: the CLI's own (where to listen, the database, logging) and these. */
export const SETTING_NAMES: readonly string[] = [
  'DEVDATA_HOST',
  'DEVDATA_PORT',
  'DEVDATA_DATABASE',
  'DEVDATA_LOG_LEVEL',
  'DEVDATA_RATE_LIMIT',
  'DEVDATA_REDIS_URL',
  'DEVDATA_KEY_CACHE_TTL_MS',
  'DEVDATA_KEY_PREFIX',
  'DEVDATA_RESPONSE_CACHE_MB',
  'DEVDATA_WEBHOOK_TIMEOUT_MS',
  'DEVDATA_WEBHOOK_BACKLOG_MB',
  'DEVDATA_LLM_BASE_URL',
  'DEVDATA_LLM_MODEL',
  'DEVDATA_LLM_API_KEY',
  'DEVDATA_LLM_TIMEOUT_MS',
  'DEVDATA_ALLOW_LOOPBACK_WEBHOOKS',
  'DEVDATA_PUSH_URL',
  'DEVDATA_MAX_EVENT_LOOP_DELAY_MS',
  'DEVDATA_MCP_ALLOWED_ORIGINS',
  ...EVENT_SETTING_NAMES,
];

/** Settings that had another name before: set under the old one, they would be ignored without a word. */
const RENAMED_SETTINGS: Record<string, string> = { DEVDATA_LIST_CACHE_MB: 'DEVDATA_RESPONSE_CACHE_MB' };

/**
 * A warning for each DEVDATA_* variable in `env` that no setting reads (a typo, or a name from an older version),
 * naming the setting it probably meant: such a variable changes nothing, which its operator would not notice.
 * DEVDATA_E2E_* are the end-to-end tests' own settings.
 */
export function unknownSettings(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('DEVDATA_') && !name.startsWith('DEVDATA_E2E_'))
    .filter((name) => !SETTING_NAMES.includes(name))
    .sort()
    .map((name) => {
      const renamed = RENAMED_SETTINGS[name];
      const meant = closestField(name, SETTING_NAMES);
      const hint = renamed
        ? `it is called ${renamed} now`
        : meant
          ? `did you mean ${meant}?`
          : 'the settings are listed in server/README.md';
      return `${name} is not a devdata-server setting and is ignored (${hint})`;
    });
}

const RATE_LIMIT_MAX_REQUESTS = 1_000_000;
const RATE_LIMIT_MAX_SECONDS = 86_400;

/** Parses `DEVDATA_RATE_LIMIT` of the form `<requests>/<seconds>`, e.g. `600/60`: at most a day's window. */
export function parseRateLimit(value: string | undefined): ServerConfig['rateLimit'] {
  const match = /^(\d{1,16})\/(\d{1,16})$/.exec(value || '600/60');
  const [max, seconds] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (max < 1 || max > RATE_LIMIT_MAX_REQUESTS || seconds < 1 || seconds > RATE_LIMIT_MAX_SECONDS) {
    throw new Error(
      `DEVDATA_RATE_LIMIT must look like 600/60 (requests/seconds, 1 to ${RATE_LIMIT_MAX_REQUESTS} requests in ` +
        `1 to ${RATE_LIMIT_MAX_SECONDS} seconds), got "${value}"`,
    );
  }
  return { max, windowMs: seconds * 1000 };
}

const KEY_PREFIX_SHAPE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*_$/;
const KEY_PREFIX_MAX_LENGTH = 16;

/**
 * `DEVDATA_KEY_PREFIX`, e.g. `omi_dev_`: lowercase words joined and ended by `_`, at most 16 characters, and
 * neither the prefix of another kind of secret nor starting with one (a developer key looking like an app secret
 * would mislead its reader).
 */
export function keyPrefixSetting(value: string | undefined): string {
  if (value === undefined || value === '') return DEFAULT_DEV_KEY_PREFIX;
  if (value.length > KEY_PREFIX_MAX_LENGTH || !KEY_PREFIX_SHAPE.test(value)) {
    throw new Error(
      `DEVDATA_KEY_PREFIX must be lowercase letters and digits in words joined and ended by "_", starting with ` +
        `a letter, at most ${KEY_PREFIX_MAX_LENGTH} characters (e.g. svc_dev_ or omi_dev_), got "${value}"`,
    );
  }
  // A prefix that begins with another secret's (sk_live_, whsec_x_) reads as that secret just the same; one that
  // another secret's begins with (svc_) makes that secret read as a developer key.
  const others = [APP_SECRET_PREFIX, WEBHOOK_SECRET_PREFIX, ADMIN_TOKEN_PREFIX];
  const taken = others.find((other) => value.startsWith(other));
  const within = others.find((other) => other.startsWith(value));
  if (within && !taken) {
    throw new Error(
      `DEVDATA_KEY_PREFIX must not be the start of ${within}, the prefix of another kind of secret: that secret ` +
        `would read as a developer key, got "${value}"`,
    );
  }
  if (taken === value) {
    throw new Error(
      `DEVDATA_KEY_PREFIX must differ from ${taken}, the prefix of another kind of secret, got "${value}"`,
    );
  }
  if (taken) {
    throw new Error(
      `DEVDATA_KEY_PREFIX must not start with ${taken}, the prefix of another kind of secret: a developer key ` +
        `would read as one of those, got "${value}"`,
    );
  }
  return value;
}

/** An optional http(s) URL from the environment (trailing slashes dropped); unset or empty means none. */
function urlSetting(name: string, value: string | undefined): string | null {
  if (!value) return null;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new Error(`${name} must be an http(s) URL, got "${withoutPassword(value)}"`);
  }
  return value.replace(/\/+$/, '');
}

/**
 * Throws when the outbound policy would refuse every push to `pushUrl`: the URL is the operator's, so the start
 * stops rather than each push failing later. A host name is left to each push, which vets what it resolves to.
 */
export function assertPushUrlAllowed(policy: OutboundPolicy, pushUrl: string | null): void {
  const refused = pushUrl && policy.preflight(pushUrl);
  if (!refused) return;
  const why = refused === 'must use https' ? refused : `is refused: ${refused}`;
  throw new Error(`DEVDATA_PUSH_URL ${why}, got "${withoutPassword(pushUrl)}"`);
}

/**
 * `DEVDATA_REDIS_URL`: redis:// or rediss://, unset or empty for none. Its database index, the path (or the `db`
 * parameter), is a plain number: the client would read `/abc` or `/-1` as something else, or as database 0.
 */
function redisUrlSetting(value: string | undefined): string | null {
  if (!value) return null;
  if (!URL.canParse(value) || !/^rediss?:$/.test(new URL(value).protocol)) {
    throw new Error(`DEVDATA_REDIS_URL must be a redis:// or rediss:// URL, got "${withoutPassword(value)}"`);
  }
  const url = new URL(value);
  const index = url.pathname.length > 1 ? url.pathname.slice(1) : url.searchParams.get('db');
  if (index !== null && !(/^\d{1,10}$/.test(index) && Number(index) <= 2_147_483_647)) {
    throw new Error(
      `DEVDATA_REDIS_URL must name its database by number (redis://host:6379/0, /1, …), got "${withoutPassword(value)}"`,
    );
  }
  return value;
}

/**
 * `DEVDATA_MCP_ALLOWED_ORIGINS`: origins separated by commas (spaces around them and empty ones skipped), each
 * scheme://host[:port] and nothing more, kept as a browser writes it in `Origin` (see originOf):
 * `https://Chat.example.com:443/` is `https://chat.example.com`. Unset or empty: none.
 */
export function allowedOriginsSetting(value: string | undefined): string[] {
  const entries = (value ?? '').split(',').map((entry) => entry.trim());
  return entries
    .filter((entry) => entry !== '')
    .map((entry) => {
      if (entry.includes('*')) {
        throw new Error(
          'DEVDATA_MCP_ALLOWED_ORIGINS takes no wildcard: name each origin (https://chat.example.com), got ' +
            `"${withoutPassword(entry)}"`,
        );
      }
      const origin = originOf(entry);
      if (origin === null) {
        throw new Error(
          'DEVDATA_MCP_ALLOWED_ORIGINS must be origins separated by commas, each scheme://host[:port] and ' +
            'nothing after (e.g. https://chat.example.com or http://localhost:5173), got ' +
            `"${withoutPassword(entry)}"`,
        );
      }
      return origin;
    });
}

/** `DEVDATA_ALLOW_LOOPBACK_WEBHOOKS`: 1/true or 0/false (unset: false); refused when NODE_ENV=production. */
export function loopbackAllowance(env: NodeJS.ProcessEnv): boolean {
  const value = env.DEVDATA_ALLOW_LOOPBACK_WEBHOOKS;
  if (value === undefined || value === '' || value === '0' || value === 'false') return false;
  if (value !== '1' && value !== 'true') {
    throw new Error(
      `DEVDATA_ALLOW_LOOPBACK_WEBHOOKS must be 1 or 0, got "${value}" (accepted: 1 or true to allow, 0 or false ` +
        `to refuse; unset or empty means 0)`,
    );
  }
  if (env.NODE_ENV === 'production') {
    throw new Error(
      'DEVDATA_ALLOW_LOOPBACK_WEBHOOKS is a development setting, refused when NODE_ENV=production',
    );
  }
  return true;
}

const HOUR_MS = 3_600_000;
/** The longest a webhook or LLM call may be given: past ten minutes a caller has long given up. */
const TIMEOUT_MAX_MS = 600_000;

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const allowLoopbackWebhooks = loopbackAllowance(env);
  const pushUrl = urlSetting('DEVDATA_PUSH_URL', env.DEVDATA_PUSH_URL);
  assertPushUrlAllowed(new OutboundPolicy(allowLoopbackWebhooks), pushUrl);
  return {
    rateLimit: parseRateLimit(env.DEVDATA_RATE_LIMIT),
    redisUrl: redisUrlSetting(env.DEVDATA_REDIS_URL),
    keyCacheTtlMs: integerSetting(
      'DEVDATA_KEY_CACHE_TTL_MS',
      env.DEVDATA_KEY_CACHE_TTL_MS,
      KEY_CACHE_TTL_MS,
      {
        min: 0,
        max: HOUR_MS,
      },
    ),
    keyPrefix: keyPrefixSetting(env.DEVDATA_KEY_PREFIX),
    responseCacheMb: integerSetting('DEVDATA_RESPONSE_CACHE_MB', env.DEVDATA_RESPONSE_CACHE_MB, 32, {
      min: 0,
      max: 16_384,
    }),
    directNotificationsPerHour: DIRECT_NOTIFICATIONS_PER_HOUR,
    webhookTimeoutMs: integerSetting('DEVDATA_WEBHOOK_TIMEOUT_MS', env.DEVDATA_WEBHOOK_TIMEOUT_MS, 15_000, {
      min: 1,
      max: TIMEOUT_MAX_MS,
    }),
    webhookMaxReplyBytes: 1024 * 1024,
    webhookConcurrency: 8,
    webhookConcurrencyPerApp: 2,
    webhookBacklogBytes:
      integerSetting('DEVDATA_WEBHOOK_BACKLOG_MB', env.DEVDATA_WEBHOOK_BACKLOG_MB, 16, {
        min: 1,
        max: 16_384,
      }) *
      1024 *
      1024,
    breakerFailures: 5,
    breakerCooldownMs: 30_000,
    proactiveWindowMs: 30_000,
    llmBaseUrl: urlSetting('DEVDATA_LLM_BASE_URL', env.DEVDATA_LLM_BASE_URL),
    llmModel: env.DEVDATA_LLM_MODEL || 'gpt-4o-mini',
    llmApiKey: env.DEVDATA_LLM_API_KEY || null,
    llmTimeoutMs: integerSetting('DEVDATA_LLM_TIMEOUT_MS', env.DEVDATA_LLM_TIMEOUT_MS, 30_000, {
      min: 1,
      max: TIMEOUT_MAX_MS,
    }),
    allowLoopbackWebhooks,
    pushUrl,
    sseHeartbeatMs: 15_000,
    streamKeyRecheckMs: 30_000,
    maxEventLoopDelayMs: integerSetting(
      'DEVDATA_MAX_EVENT_LOOP_DELAY_MS',
      env.DEVDATA_MAX_EVENT_LOOP_DELAY_MS,
      1_000,
      { min: 0, max: 60_000 },
    ),
    loadSampleIntervalMs: 1_000,
    events: eventSettingsFromEnv(env),
    mcpAllowedOrigins: allowedOriginsSetting(env.DEVDATA_MCP_ALLOWED_ORIGINS),
  };
}
