import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemMessage } from '../../../shared';

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

/**
 * The Session ID of an item. An expression that gives nothing (a field the item lacks) is refused: sent as it
 * is, it named the session "undefined", and every such item went into that one conversation.
 */
export function sessionIdOf(this: IExecuteFunctions, itemIndex: number): string {
  const value: unknown = this.getNodeParameter(sessionId.name, itemIndex);
  if (value === undefined || value === null || String(value).trim() === '') {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`The ${sessionId.displayName} is empty`, itemIndex),
      {
        itemIndex,
        description: `Set ${sessionId.displayName} to your ID for the live conversation. If it is an expression, check what it evaluates to for this item.`,
      },
    );
  }
  return String(value);
}

export const sessionPath = (id: string) => `/v1/dev/user/transcripts/${encodeURIComponent(id)}`;
