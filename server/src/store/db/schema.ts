import type { Generated } from 'kysely';

// Row types of the database. Instants are epoch milliseconds (bigint columns, compared as numbers on both
// dialects); booleans are 0/1 integers and JSON values are text, so SQLite and PostgreSQL share one code path.

export interface UsersTable {
  id: string;
  name: string;
  created_at: number;
}

export interface AdminTokensTable {
  id: string;
  token_hash: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  scopes: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface AppsTable {
  id: string;
  name: string;
  capabilities: string;
  external_integration: string | null;
  proactive_notification: string | null;
  secret_hash: string;
  webhook_secret: string;
  created_at: number;
  updated_at: number;
}

export interface AppInstallsTable {
  app_id: string;
  user_id: string;
  granted_scopes: string;
  created_at: number;
}

export interface ScreenActivityTable {
  id: string;
  user_id: string;
  timestamp: number;
  app_name: string;
  window_title: string;
  ocr_text: string;
}

export interface ActionItemsTable {
  id: string;
  user_id: string;
  description: string;
  completed: number;
  conversation_id: string | null;
  due_at: number | null;
  completed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ConversationsTable {
  id: string;
  user_id: string;
  client_session_id: string | null;
  folder_id: string | null;
  language: string;
  source: string;
  structured: string;
  transcript_segments: string;
  geolocation: string | null;
  discarded: number;
  started_at: number;
  finished_at: number;
  created_at: number;
  updated_at: number;
  /** 1 while a live transcript session is open (see 0002_proactive). */
  live: Generated<number>;
  /** 0/1, set by PATCH (see 0005_conversation_fields). */
  starred: Generated<number>;
  /** What kind of text a conversation created from text holds; null for the others. */
  text_source: string | null;
  text_source_spec: string | null;
}

export interface FoldersTable {
  id: string;
  user_id: string;
  name: string;
  description: string | null;
  color: string | null;
  icon: Generated<string>;
  /** The folder's place in the user's list (`order` on the wire). */
  display_order: Generated<number>;
  is_default: Generated<number>;
  is_system: Generated<number>;
  category_mapping: string | null;
  created_at: number;
  updated_at: number;
}

export interface MemoriesTable {
  id: string;
  user_id: string;
  content: string;
  category: string;
  visibility: string;
  tags: string;
  manually_added: Generated<number>;
  reviewed: Generated<number>;
  /** The user's verdict: 1 approved, 0 rejected, null none. */
  user_review: number | null;
  edited: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface GoalsTable {
  id: string;
  user_id: string;
  title: string;
  desired_outcome: string;
  goal_type: string;
  source: string;
  status: string;
  current_value: number;
  target_value: number;
  min_value: number;
  max_value: number;
  unit: string | null;
  focus_rank: number | null;
  horizon_at: number | null;
  success_criteria: string;
  why_it_matters: string | null;
  created_at: number;
  updated_at: number;
}

export interface GoalHistoryTable {
  goal_id: string;
  day: string;
  value: number;
  recorded_at: number;
}

export interface PeopleTable {
  id: string;
  user_id: string;
  name: string;
  name_key: string;
  speech_sample_transcripts: string;
  created_at: number;
  updated_at: number;
}

export interface NotificationsTable {
  id: string;
  user_id: string;
  app_id: string;
  kind: string;
  title: string;
  text: string;
  generated: number;
  created_at: number;
}

export interface RateCountersTable {
  key: string;
  count: number;
  expires_at: number;
}

export interface DeliveriesTable {
  id: string;
  app_id: string;
  user_id: string;
  session_id: string;
  url: string;
  status_code: number | null;
  latency_ms: number;
  outcome: string;
  detail: string | null;
  notification_id: string | null;
  created_at: number;
}

/** The last write stamp handed out to a user (see store/db/write-clock.ts). */
export interface ChangeClockTable {
  user_id: string;
  last_ms: number;
}

/** A deleted record, kept for the change feed (`GET /v1/dev/user/deleted`). */
export interface TombstonesTable {
  user_id: string;
  type: string;
  id: string;
  deleted_at: number;
}

/** A user's event webhook subscription (see migration 0007). */
export interface WebhookSubscriptionsTable {
  id: string;
  user_id: string;
  url: string;
  events: string;
  description: string | null;
  active: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

/** An event a write caused, written in the write's transaction. */
export interface WebhookEventsTable {
  id: string;
  user_id: string;
  type: string;
  data: string;
  created_at: number;
}

/** One event to one subscription, and how sending it went. */
export interface WebhookDeliveriesTable {
  id: string;
  subscription_id: string;
  event_id: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  lease: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface Database {
  users: UsersTable;
  admin_tokens: AdminTokensTable;
  api_keys: ApiKeysTable;
  apps: AppsTable;
  app_installs: AppInstallsTable;
  screen_activity: ScreenActivityTable;
  action_items: ActionItemsTable;
  conversations: ConversationsTable;
  folders: FoldersTable;
  memories: MemoriesTable;
  goals: GoalsTable;
  goal_history: GoalHistoryTable;
  people: PeopleTable;
  notifications: NotificationsTable;
  rate_counters: RateCountersTable;
  deliveries: DeliveriesTable;
  change_clock: ChangeClockTable;
  tombstones: TombstonesTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
