// An app's notification to one of its users, pushed at once: allowed when the user installed the app, and
// counted against the hourly limit per app and user (the count goes up with every attempt, refused or not).
import type { Pusher } from '../proactive/push';
import type { Repositories } from '../store';

/** The hourly window an attempt was counted in; `resetAt` in epoch ms. */
export interface HourlyWindow {
  limit: number;
  remaining: number;
  resetAt: number;
}

export type DirectNotificationOutcome =
  | { outcome: 'sent'; window: HourlyWindow }
  | { outcome: 'not_installed' }
  | { outcome: 'over_limit'; window: HourlyWindow; retryAfterSeconds: number };

export interface DirectNotification {
  appId: string;
  /** Shown as the notification's title. */
  appName: string;
  userId: string;
  message: string;
}

export function directNotifications(
  { apps, users, proactive }: Pick<Repositories, 'apps' | 'users' | 'proactive'>,
  pusher: Pusher,
  perHour: number,
) {
  return {
    /** NotFound "User" when the user does not exist; otherwise what became of the notification. */
    async send({ appId, appName, userId, message }: DirectNotification): Promise<DirectNotificationOutcome> {
      if (!(await apps.findInstall(appId, userId))) {
        await users.requireUser(userId);
        return { outcome: 'not_installed' };
      }
      const now = Date.now();
      const { count, expiresAt } = await proactive.countDirectNotification(appId, userId, now);
      const window = { limit: perHour, remaining: Math.max(0, perHour - count), resetAt: expiresAt };
      if (count > perHour) {
        const retryAfterSeconds = Math.max(1, Math.ceil((expiresAt - now) / 1000));
        return { outcome: 'over_limit', window, retryAfterSeconds };
      }
      await pusher.push({ userId, appId, kind: 'direct', title: appName, text: message, generated: false });
      return { outcome: 'sent', window };
    },
  };
}
