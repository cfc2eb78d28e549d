// Every repository, built here once over one database: app.ts hands them to the routes and the proactive
// pipeline (`app.repositories`), and the scripts take theirs from here too. Nothing else constructs a repository.
import { actionItemsRepository } from './action-items';
import { adminTokensRepository } from './admin-tokens';
import { appsRepository } from './apps';
import { conversationsRepository } from './conversations';
import type { Store } from './db/database';
import { deliveriesRepository } from './deliveries';
import { foldersRepository } from './folders';
import { goalsRepository } from './goals';
import { memoriesRepository } from './memories';
import { notificationsRepository } from './notifications';
import { peopleRepository } from './people';
import { proactiveRepository } from './proactive';
import { screenActivityRepository } from './screen-activity';
import { tombstonesRepository } from './tombstones';
import { usersRepository, type UsersOptions } from './users';
import { webhooksRepository } from './webhooks';

/** Every repository over `store`; `options` tune the key cache of the users repository. */
export function buildRepositories(store: Pick<Store, 'db' | 'dialect'>, options: UsersOptions = {}) {
  const { db, dialect } = store;
  // Users with their developer keys, admin tokens, and apps with their installs: who may call what.
  const users = usersRepository(db, options);
  const actionItems = actionItemsRepository(db);
  const conversations = conversationsRepository(db, dialect, actionItems);
  return {
    users,
    adminTokens: adminTokensRepository(db),
    apps: appsRepository(db, users),
    actionItems,
    conversations,
    folders: foldersRepository(db, conversations),
    goals: goalsRepository(db),
    memories: memoriesRepository(db),
    people: peopleRepository(db),
    screenActivity: screenActivityRepository(db),
    tombstones: tombstonesRepository(db),
    notifications: notificationsRepository(db),
    deliveries: deliveriesRepository(db),
    proactive: proactiveRepository(db),
    webhooks: webhooksRepository(db, dialect),
  };
}

export type Repositories = ReturnType<typeof buildRepositories>;
