import type { Store } from '../store/db';
import { newId } from '../ids';

export interface Push {
  userId: string;
  appId: string;
  kind: 'direct' | 'proactive';
  title: string;
  text: string;
  generated: boolean;
}

/** Delivers a notification: stores it in the user's inbox, where the inbox endpoints read it. */
export async function push(store: Store, notification: Push) {
  const row = {
    id: newId(),
    user_id: notification.userId,
    app_id: notification.appId,
    kind: notification.kind,
    title: notification.title,
    text: notification.text,
    generated: notification.generated ? 1 : 0,
    created_at: Date.now(),
  };
  await store.db.insertInto('notifications').values(row).execute();
  return row;
}
