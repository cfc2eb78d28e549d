import axios from 'axios';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { ServerConfig } from '../config';
import {
  MESSAGE_MIN_EXCLUSIVE,
  replyNotification,
  webhookReplyParts,
  type Outcome,
  type ReplyNotification,
  type WebhookReplyParts,
  type WebhookSegment,
} from '../contract/proactive';
import { PROACTIVE_SCOPES, type ProactiveScope } from '../contract/scopes';
import type { Repositories } from '../store';
import type { App, Install } from '../store/apps';
import type { ClaimedWindow } from '../store/proactive';
import { NotFound } from '../store/db/store-errors';
import { Breakers } from './breaker';
import { generate } from './generator';
import { redirectNote, shownReason } from './reason';
import { jsonText } from '../json-text';
import { isN8nStartingPage, N8N_STARTING } from '../outbound/n8n-starting';
import type { OutboundPolicy } from '../outbound/policy';
import type { Pusher } from './push';
import { WorkQueue } from './queue';
import { sign } from './signature';
import { contextValues, fill, filledLength } from './template';

export const MIN_PROMPT = 5;
/** The real service's limit (its max_prompt_char_limit): a longer prompt is not sent to the LLM. */
export const MAX_PROMPT = 128_000;
export const MIN_GENERATED = 5;
/** How many refused params a `scopes_not_granted` record names. */
const REFUSED_PARAMS_SHOWN = 10;
/** Delivery records are kept this long; older ones are pruned, at most once an hour per server instance. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;
const DELIVERY_PRUNE_INTERVAL_MS = 3_600_000;

/** One webhook call to make: these new segments of a session, to one app of the session's user. */
export interface DispatchJob {
  appId: string;
  userId: string;
  sessionId: string;
  url: string;
  secret: string;
  segments: WebhookSegment[];
}

/** A queued call: the job without its segments, which its request body carries. */
type Call = Omit<DispatchJob, 'segments'>;

interface Result {
  outcome: Outcome;
  statusCode: number | null;
  detail: string | null;
  notificationId?: string;
  /** The call was not made (besides `circuit_open` and `backlog_full`, which never make one): no latency. */
  notMade?: true;
}
/** What one part of a valid reply (its message, its notification) led to. */
type PartResult = Omit<Result, 'statusCode'>;

/** A notification that passed every check, the user's window for the app claimed for it: to be generated. */
interface Generation {
  app: App;
  notification: ReplyNotification;
  window: ClaimedWindow;
  claimedAt: number;
}

const SURROGATE_PAIRS = /[\ud800-\udbff][\udc00-\udfff]/g;

/**
 * The length of a text in characters (code points), as the real service counts them, not in UTF-16 units:
 * counted without splitting the text, as a variable's text may be megabytes.
 */
function characters(text: string): number {
  return text.length - (text.match(SURROGATE_PAIRS)?.length ?? 0);
}

/** Why a reply (or its notification, under `prefix`) does not match the shape, for the delivery record. */
function replyMismatch(error: z.ZodError, prefix: string[] = []): string {
  const issue = error.issues[0];
  const path = [...prefix, ...issue.path].join('.') || '(root)';
  return `The reply does not match {session_id?, message?, notification?:{prompt, params}}: ${path}: ${issue.message}`;
}

/**
 * The reason a refusing webhook gave in its JSON body (`message`, as n8n and the Transcript Trigger answer, or
 * `detail`), as shownReason keeps it for the delivery record; '' when it gave none.
 */
function answerReason(body: string): string {
  let said: unknown;
  try {
    const parsed = JSON.parse(body) as { message?: unknown; detail?: unknown } | null;
    said = parsed?.message ?? parsed?.detail;
  } catch {
    return '';
  }
  // A NUL or a lone surrogate cannot be stored as sent: the record then keeps the status alone.
  return shownReason(said);
}

/** Whether a reply's `message` is pushed: longer than 5 characters, as the real service has it. */
function hasMessage(reply: WebhookReplyParts): boolean {
  return characters(reply.message ?? '') > MESSAGE_MIN_EXCLUSIVE;
}

/** The fields of a reply the pipeline reads; any other is ignored. */
const REPLY_FIELDS = ['session_id', 'message', 'notification'];
/** How many ignored fields a `no_notification` record names. */
const IGNORED_FIELDS_SHOWN = 10;

/**
 * Why a reply with neither a notification nor a message to push pushed nothing, when it looks meant to: the
 * error an n8n node put out instead of a reply (`{error}`, a node set to continue on failure), fields the pipeline
 * does not read (a `prompt` outside `notification`), or a message too short; null for a reply with nothing to say.
 */
function unheededReply(json: object, reply: WebhookReplyParts): string | null {
  const error = shownReason((json as { error?: unknown }).error);
  if (error) return `The reply is an error, not a notification: ${error}`;
  const ignored = Object.keys(json).filter((field) => !REPLY_FIELDS.includes(field));
  if (ignored.length > 0) {
    const names = ignored.slice(0, IGNORED_FIELDS_SHOWN).map((field) => shownReason(JSON.stringify(field)));
    const more =
      ignored.length > IGNORED_FIELDS_SHOWN ? ` and ${ignored.length - IGNORED_FIELDS_SHOWN} more` : '';
    return `The reply has no notification and no message, only fields that are not read: ${names.join(', ')}${more}; a notification is {"notification": {"prompt": "…", "params": […]}}`;
  }
  const message = reply.message ?? '';
  if (message.trim() !== '') {
    return `The message has ${characters(message)} characters: only a message longer than ${MESSAGE_MIN_EXCLUSIVE} is pushed`;
  }
  return null;
}

/** Errors thrown before any HTTP answer; classified into the transport outcomes. */
function transportOutcome(error: unknown, maxBytes: number): { outcome: Outcome; detail: string } {
  const e = error as { code?: string; message?: string };
  if (e.code === 'ECONNABORTED' || e.code === 'ETIMEDOUT' || e.code === 'ERR_CANCELED') {
    return { outcome: 'timeout', detail: 'The webhook did not answer in time' };
  }
  if (/maxContentLength/i.test(e.message ?? '')) {
    return { outcome: 'invalid_reply', detail: `Reply larger than ${maxBytes} bytes` };
  }
  return { outcome: 'network_error', detail: `${e.code ?? 'error'}: ${e.message ?? String(error)}` };
}

/**
 * The proactive pipeline after ingestion: calls each app's webhook with the new segments (signed, bounded in
 * time, size and concurrency, behind a per-URL circuit breaker), validates the reply, then, with the call's slot
 * free again, fills the template, generates, pushes, and records every call as a delivery. Runs in this process after the ingestion request
 * has been answered; nothing here ever throws into ingestion.
 */
export class Dispatcher {
  private readonly queue: WorkQueue;
  /**
   * The notifications being generated, apart from the webhook calls and with the same bounds (at once, per app):
   * a model that is slow or hangs holds these slots, never a webhook call's.
   */
  private readonly generations: WorkQueue;
  private readonly breakers: Breakers;
  /**
   * Work outside the queue's slots, so that `idle()` waits for it too: deliveries of refused calls being recorded,
   * and valid replies being acted on (their notifications generated and pushed).
   */
  private readonly background = new Set<Promise<void>>();
  private lastPruneAt = 0;

  constructor(
    private readonly repositories: Pick<Repositories, 'apps' | 'deliveries' | 'proactive'>,
    private readonly config: ServerConfig,
    private readonly pusher: Pusher,
    private readonly outbound: OutboundPolicy,
    private readonly log: FastifyBaseLogger,
  ) {
    this.queue = new WorkQueue(
      config.webhookConcurrency,
      config.webhookConcurrencyPerApp,
      config.webhookBacklogBytes,
    );
    // Nothing to bound in bytes: each user's window for an app lets one notification wait at a time.
    this.generations = new WorkQueue(config.webhookConcurrency, config.webhookConcurrencyPerApp, Infinity);
    this.breakers = new Breakers(config.breakerFailures, config.breakerCooldownMs);
  }

  /** The apps this user installed that take transcripts: `external_integration` with a webhook URL. */
  targets(userId: string): Promise<{ appId: string; url: string; secret: string }[]> {
    return this.repositories.apps.webhookTargets(userId);
  }

  /**
   * Queues one webhook call; it starts on a later tick, so the caller answers its request first. Calls are
   * queued per app, so one app's slow or hanging webhook holds only its own share of the slots. A call that
   * would take the app's backlog past its bound is not made, and recorded as `backlog_full`.
   */
  dispatch(job: DispatchJob): void {
    // The body is made once, here: the waiting call holds it instead of the segments, and is measured by it.
    const { segments, ...call } = job;
    // `uid` in the body too: the real service's example apps (hey_omi, teacher) read the body's `uid` and, without
    // one, take `session_id` for the user's id, which it is there (here it names the session).
    const body = JSON.stringify({ session_id: job.sessionId, uid: job.userId, segments });
    const queued = this.queue.push(job.appId, () => this.run(call, body), Buffer.byteLength(body));
    if (queued) return;
    const bound = this.config.webhookBacklogBytes;
    const refused = this.record(call, Date.now(), [
      {
        outcome: 'backlog_full',
        statusCode: null,
        detail: `Not sent: the app's webhook calls waiting for a slot would hold more than ${bound} bytes (DEVDATA_WEBHOOK_BACKLOG_MB)`,
      },
    ]);
    this.inBackground(refused);
  }

  private inBackground(work: Promise<void>): void {
    const tracked = work.finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  /** Resolves once every queued and running call has finished (and its push forward is out). */
  async idle(): Promise<void> {
    await this.queue.idle();
    await Promise.all([...this.background]);
    await this.generations.idle();
    await this.pusher.settle();
  }

  private async run(queued: Call, body: string): Promise<void> {
    const started = Date.now();
    let job = queued;
    let results: Result[];
    try {
      // A call may wait in the queue a long while behind a slow webhook. It goes where the app's webhook is now,
      // signed with its secret now (an n8n workflow moved from its test URL to its production one, say), and
      // not at all once the user removed the app, which withdraws the transcript from it, or the app its webhook.
      const [target] = await this.repositories.apps.webhookTargets(queued.userId, queued.appId);
      if (target) {
        job = { ...queued, url: target.url, secret: target.secret };
        const answer = await this.call(job, body);
        if (!Array.isArray(answer)) {
          // The webhook has answered: its slot is free for the next call. What the reply leads to goes on outside
          // the queue, a notification's generation in a queue of its own, so a slow or hanging model delays no
          // app's webhook call.
          this.inBackground(this.act(job, started, answer.statusCode, answer.reply));
          return;
        }
        results = answer;
      } else {
        const detail =
          'Not sent: the user removed the app, or the app its webhook, while the call waited for a slot';
        results = [{ outcome: 'not_installed', statusCode: null, detail, notMade: true }];
      }
    } catch (error) {
      this.log.error({ err: error, app: job.appId, session: job.sessionId }, 'proactive dispatch failed');
      results = [{ outcome: 'network_error', statusCode: null, detail: 'Internal error while dispatching' }];
    }
    await this.record(job, started, results);
  }

  /** Acts on a valid reply (see `handle`) and records what came of it; never throws. */
  private async act(job: Call, started: number, statusCode: number, reply: WebhookReplyParts): Promise<void> {
    let results: Result[];
    try {
      const { parts, generation } = await this.handle(job, reply);
      results = parts.map((result) => ({ ...result, statusCode }));
      if (generation) {
        const { app, notification, window, claimedAt } = generation;
        this.generations.push(
          job.appId,
          () => this.generateAndRecord(job, started, statusCode, app, notification, window, claimedAt),
          0,
        );
      }
    } catch (error) {
      this.log.error({ err: error, app: job.appId, session: job.sessionId }, 'proactive dispatch failed');
      results = [
        { outcome: 'network_error', statusCode, detail: 'Internal error while acting on the reply' },
      ];
    }
    await this.record(job, started, results);
  }

  /** Generates and pushes a notification that passed every check, in its generation slot; records the outcome. */
  private async generateAndRecord(
    job: Call,
    started: number,
    statusCode: number,
    app: App,
    notification: ReplyNotification,
    window: ClaimedWindow,
    claimedAt: number,
  ): Promise<void> {
    let result: Result;
    try {
      result = { ...(await this.generateAndPush(job, app, notification, window, claimedAt)), statusCode };
    } catch (error) {
      this.log.error({ err: error, app: job.appId, session: job.sessionId }, 'proactive generation failed');
      result = {
        outcome: 'network_error',
        statusCode,
        detail: 'Internal error while generating the notification',
      };
    }
    await this.record(job, started, [result]);
  }

  /** Records each result as a delivery (never throws), then prunes old deliveries now and then. */
  private async record(job: Call, started: number, results: Result[]): Promise<void> {
    // One record per outcome: a reply whose message and notification are both pushed (or the notification
    // dropped) leaves two.
    for (const result of results) {
      const made = result.outcome !== 'circuit_open' && result.outcome !== 'backlog_full' && !result.notMade;
      const latency = made ? Date.now() - started : 0;
      try {
        await this.repositories.deliveries.record({
          app_id: job.appId,
          user_id: job.userId,
          session_id: job.sessionId,
          url: job.url,
          status_code: result.statusCode,
          latency_ms: latency,
          outcome: result.outcome,
          detail: result.detail,
          notification_id: result.notificationId ?? null,
        });
      } catch (error) {
        this.log.error({ err: error, app: job.appId }, 'recording a delivery failed');
      }
      this.log.info(
        {
          app: job.appId,
          session: job.sessionId,
          outcome: result.outcome,
          status: result.statusCode,
          latency,
        },
        'webhook delivery',
      );
    }
    await this.pruneDeliveries().catch((error: unknown) =>
      this.log.warn({ err: error }, 'pruning old deliveries failed'),
    );
  }

  /** Drops delivery records past the retention: a live session records one per webhook call. */
  private async pruneDeliveries(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPruneAt < DELIVERY_PRUNE_INTERVAL_MS) return;
    this.lastPruneAt = now;
    await this.repositories.deliveries.pruneBefore(now - DELIVERY_RETENTION_MS);
  }

  /** Calls the webhook: what came of it, or, when it answered a valid reply, the reply to act on. */
  private async call(
    job: Call,
    body: string,
  ): Promise<Result[] | { statusCode: number; reply: WebhookReplyParts }> {
    if (this.breakers.isOpen(job.url)) {
      return [
        {
          outcome: 'circuit_open',
          statusCode: null,
          detail: 'Webhook URL paused after repeated failures',
        },
      ];
    }
    const { webhookTimeoutMs: timeout, webhookMaxReplyBytes: maxBytes } = this.config;
    let response;
    try {
      // A URL registered under other rules (or before them) is vetted again on every call.
      this.outbound.assertCallable(job.url);
      response = await axios.post<Buffer>(job.url, body, {
        ...this.outbound.axiosOptions(),
        params: { session_id: job.sessionId, uid: job.userId },
        headers: {
          'content-type': 'application/json',
          'x-signature': sign(job.secret, body),
          'user-agent': 'devdata-server',
        },
        timeout,
        signal: AbortSignal.timeout(timeout),
        maxContentLength: maxBytes,
        // Bytes, read as UTF-8 below: a text decoded here would have U+FFFD for what is not UTF-8.
        responseType: 'arraybuffer',
        transformResponse: [(data: Buffer) => data],
        validateStatus: () => true,
      });
    } catch (error) {
      this.breakers.failure(job.url);
      return [{ ...transportOutcome(error, maxBytes), statusCode: null }];
    }
    const statusCode = response.status;
    const text = jsonText(Buffer.from(response.data ?? ''));
    if (statusCode < 200 || statusCode >= 300) {
      this.breakers.failure(job.url);
      const reason = text === null ? '' : answerReason(text);
      const redirect = redirectNote(job.url, response.headers.location, 'register that URL instead');
      const detail = `The webhook answered HTTP ${statusCode}${redirect}${reason ? `: ${reason}` : ''}`;
      return [{ outcome: 'http_error', statusCode, detail }];
    }
    if (text === null) {
      // What a JSON parser cannot read: pushing it with U+FFFD in place of its characters would alter it.
      this.breakers.failure(job.url);
      const detail = 'The reply is not UTF-8 text (JSON must be UTF-8, whatever the Content-Type says)';
      return [{ outcome: 'invalid_reply', statusCode, detail }];
    }
    // An empty answer (a 204, or a 200 without a body) is a webhook with nothing to say, not a failure.
    if (text.trim() === '') {
      this.breakers.success(job.url);
      return [{ outcome: 'no_notification', statusCode, detail: null }];
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.breakers.failure(job.url);
      const detail = isN8nStartingPage(text)
        ? `The reply is not JSON: n8n was starting ("${N8N_STARTING}") and ran nothing`
        : 'The reply is not JSON';
      return [{ outcome: 'invalid_reply', statusCode, detail }];
    }
    this.breakers.success(job.url);
    // A reply of null, false, 0, "" or [] says nothing, as the real service reads it (it stops at a falsy reply).
    if (!json || (Array.isArray(json) && json.length === 0)) {
      return [{ outcome: 'no_notification', statusCode, detail: null }];
    }
    const parsed = webhookReplyParts.safeParse(json);
    if (!parsed.success) {
      return [{ outcome: 'invalid_reply', statusCode, detail: replyMismatch(parsed.error) }];
    }
    const reply = parsed.data;
    if (!hasMessage(reply) && (reply.notification ?? undefined) === undefined) {
      return [{ outcome: 'no_notification', statusCode, detail: unheededReply(json as object, reply) }];
    }
    return { statusCode, reply };
  }

  /**
   * Decides what a valid reply leads to: its `message` (more than 5 characters) is pushed as it is, as the real
   * service does; its `notification` is pushed when it passes every check. Each part that is there gives one
   * result (`call` has answered a reply with neither as `no_notification`). A malformed notification is its own
   * `invalid_reply`.
   */
  private async handle(
    job: Call,
    reply: WebhookReplyParts,
  ): Promise<{ parts: PartResult[]; generation?: Generation }> {
    const message = reply.message ?? '';
    const pushesMessage = hasMessage(reply);
    const notification = reply.notification ?? undefined;
    const app = await this.repositories.apps.findApp(job.appId).catch((error: unknown) => {
      if (error instanceof NotFound) return undefined;
      throw error;
    });
    if (!app) return { parts: [{ outcome: 'not_installed', detail: 'The app no longer exists' }] };
    const install = await this.repositories.apps.findInstall(job.appId, job.userId);
    const parts: PartResult[] = [];
    if (pushesMessage) parts.push(await this.pushMessage(job, app, install, message));
    if (notification === undefined) return { parts };
    const checked = await this.check(job, app, install, notification);
    if ('outcome' in checked) return { parts: [...parts, checked] };
    return { parts, generation: checked };
  }

  /** A reply's `message`: pushed at once, without a template, generation or the proactive window. */
  private async pushMessage(
    job: Call,
    app: App,
    install: Install | undefined,
    message: string,
  ): Promise<PartResult> {
    if (!install) return { outcome: 'not_installed', detail: 'The user has not installed the app' };
    const row = await this.pusher.push({
      userId: job.userId,
      appId: job.appId,
      kind: 'proactive',
      title: app.name,
      text: message,
      generated: false,
    });
    return { outcome: 'message_pushed', detail: null, notificationId: row.id };
  }

  /**
   * A reply's `notification`, as the app sent it: checked, and the user's window for the app claimed for it, to be
   * generated and pushed; or dropped with the reason.
   */
  private async check(
    job: Call,
    app: App,
    install: Install | undefined,
    sent: unknown,
  ): Promise<PartResult | Generation> {
    const drop = (outcome: Outcome, detail: string) => ({ outcome, detail });
    const parsed = replyNotification.safeParse(sent);
    if (!parsed.success) return drop('invalid_reply', replyMismatch(parsed.error, ['notification']));
    const notification: ReplyNotification = parsed.data;
    if (!app.capabilities.includes('proactive_notification')) {
      return drop('capability_missing', 'The app lacks the proactive_notification capability');
    }
    if (!install) return drop('not_installed', 'The user has not installed the app');

    const declared: string[] = app.proactive_notification?.scopes ?? [];
    const granted: string[] = install.granted_scopes;
    const refused = notification.params.filter((p) => !declared.includes(p) || !granted.includes(p));
    if (refused.length > 0) {
      // The first few names say what is wrong; a reply may list thousands, each record would keep them all.
      const names = [...new Set(refused)];
      const shown = names.slice(0, REFUSED_PARAMS_SHOWN).join(', ');
      const more =
        names.length > REFUSED_PARAMS_SHOWN ? ` and ${names.length - REFUSED_PARAMS_SHOWN} more` : '';
      return drop(
        'scopes_not_granted',
        `Not declared by the app or not granted by the user: ${shown}${more}`,
      );
    }
    // Characters are code points here as for a reply's message, so an emoji counts once.
    if (characters(notification.prompt.trim()) < MIN_PROMPT) {
      return drop('prompt_too_short', `The prompt is shorter than ${MIN_PROMPT} characters`);
    }
    const promptLength = characters(notification.prompt);
    if (promptLength > MAX_PROMPT) {
      return drop('prompt_too_long', `The prompt is too long: ${promptLength}/${MAX_PROMPT} characters`);
    }

    const claimedAt = Date.now();
    const window = await this.claimWindow(job.appId, job.userId, claimedAt);
    if (!window) {
      return drop(
        'rate_limited',
        `At most one proactive notification per user per app every ${this.config.proactiveWindowMs / 1000} s`,
      );
    }
    return { app, notification, window, claimedAt };
  }

  /**
   * A checked notification, its window claimed at `claimedAt`: filled, generated and pushed, or dropped with the
   * reason. One that waited for its slot past the time its claim allows for that is dropped, so that the claim
   * still holds while the model answers.
   */
  private async generateAndPush(
    job: Call,
    app: App,
    notification: ReplyNotification,
    window: ClaimedWindow,
    claimedAt: number,
  ): Promise<PartResult> {
    const drop = (outcome: Outcome, detail: string) => ({ outcome, detail });
    let pushed = false;
    try {
      const waited = Date.now() - claimedAt;
      if (waited > this.config.webhookTimeoutMs) {
        return drop(
          'generation_failed',
          `Not generated: it waited ${waited} ms for the LLM, busy with other notifications, more than the ${this.config.webhookTimeoutMs} ms allowed (DEVDATA_WEBHOOK_TIMEOUT_MS)`,
        );
      }
      const variables = notification.params.filter((p): p is ProactiveScope =>
        (PROACTIVE_SCOPES as readonly string[]).includes(p),
      );
      const values = await contextValues(this.repositories.proactive, job.userId, job.appId, variables);
      // Room for the prompt and one copy of each variable: more only comes of repeating placeholders.
      const room = Object.values(values).reduce((sum, value) => sum + characters(value), MAX_PROMPT);
      const length = filledLength(notification.prompt, values, characters);
      if (length > room) {
        return drop(
          'prompt_too_long',
          `The filled prompt is too long: ${length} characters, more than the ${MAX_PROMPT} of a prompt and one copy of each variable (${room})`,
        );
      }
      const filled = fill(notification.prompt, values);
      const generation = await generate(this.config, filled);
      if (!generation.ok) return drop('generation_failed', generation.reason);
      if (characters(generation.text) < MIN_GENERATED) {
        return drop('generated_too_short', `The generated text is shorter than ${MIN_GENERATED} characters`);
      }
      const row = await this.pusher.push({
        userId: job.userId,
        appId: job.appId,
        kind: 'proactive',
        title: app.name,
        text: generation.text,
        generated: generation.generated,
      });
      pushed = true;
      await window.confirm(Date.parse(row.created_at));
      return { outcome: 'pushed', detail: null, notificationId: row.id };
    } finally {
      if (!pushed) await window.release();
    }
  }

  /**
   * Takes the user's proactive window for this app, atomically (so two instances sharing the database agree):
   * refused while the last successful push is younger than the window or another push is being prepared.
   * The window then starts at the push; a failed attempt releases it.
   */
  private claimWindow(appId: string, userId: string, now: number) {
    // Long enough for the notification to wait for a generation slot (as long as a webhook call may take) and
    // for the model to answer.
    const pendingUntil = now + this.config.webhookTimeoutMs + this.config.llmTimeoutMs;
    return this.repositories.proactive.claimWindow(
      appId,
      userId,
      now,
      pendingUntil,
      this.config.proactiveWindowMs,
    );
  }
}
