// n8n answers every request, webhook calls included, with a 200 and this text/html page while it migrates its
// database at startup, and runs nothing: an answer that looks like success from a webhook that never ran.

export const N8N_STARTING = 'n8n is starting up. Please wait';

/** Whether an answer's body is n8n's startup page. */
export const isN8nStartingPage = (body: string): boolean => body.trim() === N8N_STARTING;
