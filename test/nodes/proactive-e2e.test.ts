// The proactive loop end to end, every hop over real HTTP: the real devdata-server, its app's webhook pointed
// at a served workflow by the trigger's own automatic registration; live segments posted to the server → the
// server's signed webhook call → the DevData Transcript Trigger verifies the signature → DevData Proactive Reply → Build
// → the reply → the server fills the template and pushes → the user's inbox; and the delivery log.
import { deliveriesPage, segmentsAccepted } from '../../server/src/contract/proactive';
import { notificationsPage } from '../../server/src/contract/notifications';
import { client, expectShape, type Client } from '../helpers/http';
import { forSuite } from '../helpers/server';
import {
  appCredentials,
  proactiveWorkflow,
  serveWorkflow,
  startNodeTestServer,
  TRIGGER_NODE,
  type ServedWorkflow,
} from './helpers';

const server = forSuite(() => startNodeTestServer());
let user: Client;
let app: Client;
let workflow: ServedWorkflow | undefined;

beforeAll(async () => {
  user = client(server.baseUrl, server.init.developer_key);
  app = client(server.baseUrl, server.init.app_secret);
  expect((await user.post('/v1/dev/user/memories', { content: 'Prefers short messages' })).status).toBe(200);
});
afterEach(async () => {
  await workflow?.deactivate();
  await workflow?.close();
  workflow = undefined;
});

const segments = [
  { text: 'I finally finished the marathon', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 2 },
  { text: 'Congratulations!', speaker: 'SPEAKER_01', is_user: false, start: 2, end: 3 },
];

/** Posts live segments as the user's device does, and waits until the server has dispatched them. */
async function speak(sessionId: string) {
  const accepted = await user.post(`/v1/dev/user/transcripts/${sessionId}/segments`, { segments });
  expect(accepted.status).toBe(202);
  expect(expectShape(segmentsAccepted, accepted.body).dispatched).toBe(1);
  await server.app.dispatcher.idle();
}

async function inbox() {
  const reply = await user.get('/v1/dev/user/notifications');
  expect(reply.status).toBe(200);
  return expectShape(notificationsPage, reply.body).notifications;
}

async function lastDelivery() {
  const reply = await app.get(`/v2/integrations/${server.init.app_id}/deliveries`);
  expect(reply.status).toBe(200);
  return expectShape(deliveriesPage, reply.body).deliveries[0];
}

test('segments → signed webhook → DevData Transcript Trigger → Proactive Reply → Build → push → the inbox', async () => {
  workflow = await serveWorkflow(
    proactiveWorkflow({
      trigger: { registration: 'automatic', respond: 'lastNode' },
      reply: {
        prompt: '=Tell {{user_name}} something kind about:\n{{ $json.transcript }}',
        contextToAdd: ['user_facts'],
      },
    }),
    appCredentials(server),
  );
  await workflow.activate();
  const registered = await app.get(`/v2/integrations/${server.init.app_id}/webhook`);
  expect(registered.body).toEqual({
    triggers_on: 'transcript_processed',
    webhook_url: workflow.webhookUrl(),
  });

  const before = (await inbox()).length;
  await speak('e2e-pushed');

  // The trigger accepted the server's signature and started the workflow with the call.
  expect(workflow.calls.map((c) => [c.method, c.status])).toEqual([['POST', 200]]);
  const [execution] = await workflow.executions();
  expect(execution.output(TRIGGER_NODE)[0].json).toEqual({
    session_id: 'e2e-pushed',
    uid: server.init.user_id,
    // Each segment whole, as the server sends it.
    segments: segments.map(({ text, speaker, is_user, start, end }) => ({
      id: expect.any(String),
      text,
      speaker,
      speaker_id: Number(speaker.split('_')[1]),
      is_user,
      person_id: null,
      start,
      end,
    })),
    transcript: 'You: I finally finished the marathon\nSPEAKER_01: Congratulations!',
  });

  // No LLM is configured, so the server pushes the filled prompt itself.
  const notifications = await inbox();
  expect(notifications).toHaveLength(before + 1);
  expect(notifications[0]).toMatchObject({
    app_id: server.init.app_id,
    kind: 'proactive',
    title: 'DevData App',
    generated: false,
    text:
      'Tell Demo User something kind about:\nYou: I finally finished the marathon\nSPEAKER_01: Congratulations!' +
      '\n\nWhat you know about the user:\n- Prefers short messages',
  });
  expect(await lastDelivery()).toMatchObject({
    session_id: 'e2e-pushed',
    user_id: server.init.user_id,
    url: workflow.webhookUrl(),
    status_code: 200,
    outcome: 'pushed',
    notification_id: notifications[0].id,
  });
});

test('Reply With Exact Message: the text is pushed as it is, the delivery says message_pushed', async () => {
  workflow = await serveWorkflow(
    proactiveWorkflow({
      trigger: { registration: 'automatic', respond: 'lastNode' },
      reply: { replyWith: 'message', message: '=Well done on: {{ $json.segments[0].text }}' },
    }),
    appCredentials(server),
  );
  await workflow.activate();
  const before = (await inbox()).length;
  await speak('e2e-message');

  const notifications = await inbox();
  expect(notifications).toHaveLength(before + 1);
  expect(notifications[0]).toMatchObject({
    app_id: server.init.app_id,
    kind: 'proactive',
    generated: false,
    text: 'Well done on: I finally finished the marathon',
  });
  expect(await lastDelivery()).toMatchObject({
    session_id: 'e2e-message',
    status_code: 200,
    outcome: 'message_pushed',
    notification_id: notifications[0].id,
  });
});

test('Respond "Without a Notification": the workflow runs, nothing is pushed, the delivery says no_notification', async () => {
  workflow = await serveWorkflow(
    proactiveWorkflow({ trigger: { respond: 'onReceived' } }),
    appCredentials(server),
  );
  await workflow.activate();
  const before = (await inbox()).length;
  await speak('e2e-quiet');

  expect(workflow.calls.map((c) => c.status)).toEqual([200]);
  expect(await workflow.executions()).toHaveLength(1);
  expect(await inbox()).toHaveLength(before);
  expect(await lastDelivery()).toMatchObject({
    session_id: 'e2e-quiet',
    status_code: 200,
    outcome: 'no_notification',
    notification_id: null,
  });
});

test('a credential with another signing secret: the trigger refuses the call (401) and starts nothing', async () => {
  workflow = await serveWorkflow(proactiveWorkflow(), appCredentials(server, 'whsec_not_the_apps_secret'));
  await workflow.activate();
  const before = (await inbox()).length;
  await speak('e2e-forged');

  expect(workflow.calls.map((c) => c.status)).toEqual([401]);
  expect(await workflow.executions()).toEqual([]);
  expect(await inbox()).toHaveLength(before);
  expect(await lastDelivery()).toMatchObject({
    session_id: 'e2e-forged',
    status_code: 401,
    outcome: 'http_error',
    // The trigger's reason, so that the delivery log tells a wrong secret from a wrong clock.
    detail: 'The webhook answered HTTP 401: Invalid signature',
  });
});

test('deactivating the workflow unregisters it, so the server calls nobody', async () => {
  workflow = await serveWorkflow(proactiveWorkflow(), appCredentials(server));
  await workflow.activate();
  await workflow.deactivate();
  const accepted = await user.post('/v1/dev/user/transcripts/e2e-off/segments', { segments });
  expect(accepted.status).toBe(202);
  expect(accepted.body.dispatched).toBe(0);
  await server.app.dispatcher.idle();
  expect(workflow.calls).toEqual([]);
});
