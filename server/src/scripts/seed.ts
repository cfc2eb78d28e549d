import type { Insertable } from 'kysely';
import { newId } from '../ids';
import { buildRepositories } from '../store';
import type { Store } from '../store/db/database';
import { insertRows } from '../store/db/records';
import { toFlag, toJson } from '../store/db/rows';
import type { Database } from '../store/db/schema';

type NewRow<T extends keyof Database> = Insertable<Database[T]>;

const DAY = 86_400_000;
const MINUTE = 60_000;

/** A small deterministic generator, so every demo database looks the same. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const CONVERSATIONS = [
  {
    title: 'Quarterly planning with Maya',
    category: 'work',
    emoji: '📊',
    lines: [
      ['Maya', 'Let us lock the Q1 roadmap today, the board wants it by Friday.'],
      ['me', 'Agreed. I will draft the hiring plan and send it to you tomorrow.'],
      ['Maya', 'Great. Also book the offsite venue before prices go up.'],
      ['me', 'Noted, I will get three quotes by Wednesday.'],
    ],
    actions: ['Draft the Q1 hiring plan', 'Get three offsite venue quotes'],
  },
  {
    title: 'Doctor appointment follow-up',
    category: 'health',
    emoji: '🩺',
    lines: [
      ['Dr. Okafor', 'Your blood pressure is fine, keep the evening walks.'],
      ['me', 'Should I keep taking the vitamin D?'],
      ['Dr. Okafor', 'Yes, through the winter. Come back in six months.'],
    ],
    actions: ['Book a check-up in six months'],
  },
  {
    title: 'Coffee with Sam about the startup idea',
    category: 'entrepreneurship',
    emoji: '☕',
    lines: [
      ['Sam', 'The pilot customers love the scheduling feature.'],
      ['me', 'Then we should charge for it. What would they pay?'],
      ['Sam', 'Probably twenty dollars a seat. I will ask two of them this week.'],
      ['me', 'I will put together a one-page pricing proposal.'],
    ],
    actions: ['Write a one-page pricing proposal'],
  },
  {
    title: 'Weekend trip ideas',
    category: 'travel',
    emoji: '🏔️',
    lines: [
      ['Lena', 'What about hiking near the lakes on Saturday?'],
      ['me', 'Sounds perfect. I will check the weather and the train times.'],
    ],
    actions: ['Check weather and train times for the lake hike'],
  },
  {
    title: 'Team standup',
    category: 'work',
    emoji: '🧑‍💻',
    lines: [
      ['Jon', 'The release branch is cut, QA starts today.'],
      ['me', 'I am still on the sync bug, should be done by noon.'],
      ['Jon', 'Ping me when the fix is merged.'],
    ],
    actions: ['Merge the sync bug fix and ping Jon'],
  },
  {
    title: 'Reading group: Thinking in Systems',
    category: 'education',
    emoji: '📚',
    lines: [
      ['Priya', 'Chapter three on feedback loops was the best so far.'],
      ['me', 'The bathtub analogy finally made stocks and flows click for me.'],
    ],
    actions: [],
  },
] as const;

const MEMORIES: [string, 'interesting' | 'system' | 'manual'][] = [
  ['Prefers morning meetings before 11am', 'manual'],
  ['Is training for a half marathon in the spring', 'interesting'],
  ['Works as an engineering manager at a logistics startup', 'system'],
  ['Drinks oat milk flat whites', 'interesting'],
  ['Has a sister named Lena who lives in Munich', 'system'],
  ['Takes vitamin D through the winter', 'manual'],
  ['Reads one non-fiction book a month', 'interesting'],
  ['Wants to learn Spanish before the summer trip', 'manual'],
  ['Allergic to peanuts', 'system'],
  ['Enjoys hiking near lakes on weekends', 'interesting'],
];

const GOALS = [
  { title: 'Run 100 km this month', type: 'numeric', target: 100, max: 100, unit: 'km', daily: 4 },
  { title: 'Meditate daily', type: 'boolean', target: 1, max: 1, unit: null, daily: 0 },
  { title: 'Feel rested', type: 'scale', target: 8, max: 10, unit: null, daily: 0 },
] as const;

const APPS = [
  ['Visual Studio Code', ['sync.ts — n8n-nodes-devdata', 'router.ts — n8n-nodes-devdata']],
  ['Google Chrome', ['Pull request #42 · GitHub', 'Quarterly roadmap - Docs', 'Calendar - Week 47']],
  ['Slack', ['#engineering', 'Maya (DM)', '#random']],
  ['Figma', ['Onboarding flow v3']],
  ['Terminal', ['npm test', 'git log']],
] as const;

/**
 * Demo data for the first user: what `devdata-server seed --demo` and the first `npm start` add. Written as
 * rows (backdated, unlike a write through the repositories) through the store's batch path.
 */
export async function seedDemo(store: Pick<Store, 'db' | 'dialect'>) {
  const { db } = store;
  const { users, people: peopleOf } = buildRepositories(store);
  const [user] = await users.listUsers();
  if (!user) throw new Error('No user to seed: run `devdata-server init` first');
  const userId = user.id;
  const names = ['Maya', 'Sam', 'Lena', 'Jon', 'Priya'];
  const taken = (await peopleOf.list(userId)).find((person) => names.includes(person.name));
  if (taken)
    throw new Error(
      `The demo data is already in this database (its user has the demo's person ${taken.name}): seed adds it ` +
        'only once, and wrote nothing. For another copy, seed a new database: `devdata-server init --database ' +
        'sqlite:<new file>`, then `devdata-server seed --database sqlite:<new file>`',
    );
  const now = Date.now();
  const rand = random(42);

  const folderId = newId(now - 30 * DAY);
  const folders: NewRow<'folders'>[] = [
    {
      id: folderId,
      user_id: userId,
      name: 'Work',
      description: 'Meetings and standups',
      color: '#4f46e5',
      created_at: now - 30 * DAY,
      updated_at: now - 30 * DAY,
    },
  ];

  const conversations: NewRow<'conversations'>[] = [];
  const actionItems: NewRow<'action_items'>[] = [];
  for (const [index, conversation] of CONVERSATIONS.entries()) {
    const startedAt = now - (CONVERSATIONS.length - index) * DAY + 9 * 3_600_000;
    const segments = conversation.lines.map(([speaker, text], i) => ({
      id: newId(startedAt),
      text,
      speaker_id: speaker === 'me' ? 0 : 1,
      speaker_name: speaker === 'me' ? 'You' : speaker,
      is_user: speaker === 'me',
      start: i * 12,
      end: i * 12 + 10,
    }));
    const conversationId = newId(startedAt);
    const finishedAt = startedAt + segments.length * 12_000;
    conversations.push({
      id: conversationId,
      user_id: userId,
      client_session_id: null,
      folder_id: conversation.category === 'work' ? folderId : null,
      language: 'en',
      source: 'omi',
      structured: toJson({
        title: conversation.title,
        overview: conversation.lines.map(([, text]) => text).join(' '),
        category: conversation.category,
        emoji: conversation.emoji,
      }),
      transcript_segments: toJson(segments),
      geolocation: null,
      discarded: 0,
      started_at: startedAt,
      finished_at: finishedAt,
      created_at: finishedAt,
      updated_at: finishedAt,
    });
    for (const [i, description] of conversation.actions.entries()) {
      const done = (index + i) % 3 === 0;
      actionItems.push({
        id: newId(finishedAt),
        user_id: userId,
        description,
        completed: toFlag(done),
        conversation_id: conversationId,
        due_at: finishedAt + (2 + i) * DAY,
        // Completed a day later, but never in the future: updated_at must not run ahead of real writes.
        completed_at: done ? Math.min(finishedAt + DAY, now) : null,
        created_at: finishedAt,
        updated_at: done ? Math.min(finishedAt + DAY, now) : finishedAt,
      });
    }
  }

  const memories: NewRow<'memories'>[] = MEMORIES.map(([content, category], i) => {
    const createdAt = now - (MEMORIES.length - i) * DAY;
    return {
      id: newId(createdAt),
      user_id: userId,
      content,
      category,
      visibility: 'private',
      tags: toJson([]),
      // As the API marks the memories it makes (see store/memories.ts): added by hand, reviewed, approved.
      manually_added: 1,
      reviewed: 1,
      user_review: 1,
      edited: 0,
      created_at: createdAt,
      updated_at: createdAt,
    };
  });

  const goals: NewRow<'goals'>[] = [];
  const goalHistory: NewRow<'goal_history'>[] = [];
  for (const [i, goal] of GOALS.entries()) {
    const createdAt = now - 14 * DAY - i * MINUTE;
    const goalId = newId(createdAt);
    let value = 0;
    for (let d = 13; d >= 0; d -= 1) {
      const at = now - d * DAY;
      if (goal.type === 'numeric')
        value = Math.min(goal.max, value + Math.round(goal.daily * (0.5 + rand())));
      else if (goal.type === 'boolean') value = rand() > 0.3 ? 1 : 0;
      else value = 4 + Math.round(rand() * 5);
      goalHistory.push({
        goal_id: goalId,
        day: new Date(at).toISOString().slice(0, 10),
        value,
        recorded_at: at,
      });
    }
    goals.push({
      id: goalId,
      user_id: userId,
      title: goal.title,
      desired_outcome: goal.title,
      goal_type: goal.type,
      source: 'user',
      status: i === 0 ? 'focused' : 'background',
      current_value: value,
      target_value: goal.target,
      min_value: 0,
      max_value: goal.max,
      unit: goal.unit,
      focus_rank: i === 0 ? 1 : null,
      horizon_at: null,
      success_criteria: toJson([]),
      why_it_matters: null,
      created_at: createdAt,
      updated_at: now,
    });
  }

  const people: NewRow<'people'>[] = names.map((name) => ({
    id: newId(now),
    user_id: userId,
    name,
    name_key: name.toLowerCase(),
    speech_sample_transcripts: toJson([]),
    created_at: now,
    updated_at: now,
  }));

  // Screen activity: a capture every 30 s over the last ~25 hours of working time.
  const screenActivity: NewRow<'screen_activity'>[] = [];
  const SCREEN_ROWS = 3000;
  for (let i = 0; i < SCREEN_ROWS; i += 1) {
    const timestamp = now - (SCREEN_ROWS - i) * 30_000;
    const [appName, titles] = APPS[Math.floor(rand() * APPS.length)];
    const title = titles[Math.floor(rand() * titles.length)];
    screenActivity.push({
      id: newId(timestamp),
      user_id: userId,
      timestamp,
      app_name: appName,
      window_title: title,
      ocr_text: `${title}\n${appName}`,
    });
  }

  // Referenced rows first (folders before conversations before action items, goals before their history). One
  // transaction, so a seed stopped part way (a start killed while seeding, a full disk) leaves none of it, and
  // the next seed adds it all rather than finding the demo's people and refusing.
  await db.transaction().execute(async (trx) => {
    await insertRows(trx, 'folders', folders);
    await insertRows(trx, 'conversations', conversations);
    await insertRows(trx, 'action_items', actionItems);
    await insertRows(trx, 'memories', memories);
    await insertRows(trx, 'goals', goals);
    await insertRows(trx, 'goal_history', goalHistory);
    await insertRows(trx, 'people', people);
    await insertRows(trx, 'screen_activity', screenActivity);
  });

  return {
    conversations: conversations.length,
    action_items: actionItems.length,
    memories: memories.length,
    goals: goals.length,
    people: people.length,
    screen_activity: screenActivity.length,
  };
}
