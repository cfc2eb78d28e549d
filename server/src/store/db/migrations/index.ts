import type { Migration } from 'kysely';
import * as initial from './0001_initial';
import * as proactive from './0002_proactive';
import * as changeFeed from './0003_change_feed';
import * as realServiceFields from './0004_real_service_fields';
import * as conversationFields from './0005_conversation_fields';
import * as eventWebhooks from './0007_event_webhooks';
import * as search from './0008_search';
import * as searchByUser from './0009_search_by_user';
import * as deliveriesBySubscription from './0010_deliveries_by_subscription';
import * as searchPlanning from './0011_search_planning';
import * as searchTokens from './0012_search_tokens';
import * as searchNewest from './0013_search_newest';
import * as searchAccents from './0014_search_accents';
import * as searchDiacritics from './0015_search_diacritics';
import * as searchDocumentSize from './0016_search_document_size';

// Versioned migrations, applied in key order. Never change what one that has shipped does (its statements are
// pinned by test/server/migrations-frozen.test.ts); add the next file.
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_proactive': proactive,
  '0003_change_feed': changeFeed,
  '0004_real_service_fields': realServiceFields,
  '0005_conversation_fields': conversationFields,
  '0007_event_webhooks': eventWebhooks,
  '0008_search': search,
  '0009_search_by_user': searchByUser,
  '0010_deliveries_by_subscription': deliveriesBySubscription,
  '0011_search_planning': searchPlanning,
  '0012_search_tokens': searchTokens,
  '0013_search_newest': searchNewest,
  '0014_search_accents': searchAccents,
  '0015_search_diacritics': searchDiacritics,
  '0016_search_document_size': searchDocumentSize,
};
