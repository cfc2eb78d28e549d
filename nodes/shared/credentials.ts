/** The node's credential types: the developer key for the data API, the app's ID and secret for notifications. */
export type DevDataCredentialType = 'devDataApi' | 'devDataAppApi';
