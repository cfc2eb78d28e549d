import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** The node's credential types: the developer key for the data API, the app's ID and secret for notifications. */
export type DevDataCredentialType = 'devDataApi' | 'devDataAppApi';

/** A DevData App API credential's App ID, without the spaces a paste brings along (as its secret is sent). */
export function appIdOf(credentials: ICredentialDataDecryptedObject): string {
  return String(credentials.appId ?? '').trim();
}
