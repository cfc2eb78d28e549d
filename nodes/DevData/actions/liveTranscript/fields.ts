import type { INodeProperties } from 'n8n-workflow';

/** The session the operation addresses, and the path of its requests. */
export const sessionId: INodeProperties = {
  displayName: 'Session ID',
  name: 'sessionId',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'e.g. meeting-2026-11-26',
  description:
    "Your ID for the live conversation (up to 200 letters, digits, _ . : or -). The first segments sent under a new ID start a conversation; the conversation's client_session_id is this ID.",
};

export const sessionPath = (id: string) => `/v1/dev/user/transcripts/${encodeURIComponent(id)}`;
