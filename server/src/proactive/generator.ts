import axios from 'axios';
import type { ServerConfig } from '../config';
import { textIssue } from '../contract/common';
import { redirectNote, shownReason } from './reason';

/**
 * The reason an OpenAI-compatible endpoint gave for refusing: `{error: {message}}` (OpenAI, vLLM, llama.cpp),
 * `{error: "…"}` (Ollama), or `{message}`/`{detail}`, as shownReason keeps it; '' when it gave none.
 */
function refusalReason(data: unknown): string {
  let body = data;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return '';
    }
  }
  const { error, message, detail } = (body ?? {}) as { error?: unknown; message?: unknown; detail?: unknown };
  const said =
    typeof error === 'string'
      ? error
      : ((error as { message?: unknown } | null)?.message ?? message ?? detail);
  return shownReason(said);
}

export type Generation = { ok: true; text: string; generated: boolean } | { ok: false; reason: string };

/**
 * The base URL's `/chat/completions`, put before its query: a base that carries one (`?api-version=…`, as Azure
 * OpenAI's does) would otherwise have the path appended to the query's value.
 */
function completionsUrl(base: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return url.toString();
}

/**
 * Generates the notification text from the filled prompt with an OpenAI-compatible `/chat/completions`
 * endpoint (OpenAI, Ollama, vLLM, llama.cpp); without one configured the prompt itself is the text.
 */
export async function generate(config: ServerConfig, prompt: string): Promise<Generation> {
  if (!config.llmBaseUrl) return { ok: true, text: prompt.trim(), generated: false };
  const url = completionsUrl(config.llmBaseUrl);
  try {
    const response = await axios.post(
      url,
      { model: config.llmModel, messages: [{ role: 'user', content: prompt }] },
      {
        timeout: config.llmTimeoutMs,
        signal: AbortSignal.timeout(config.llmTimeoutMs),
        maxContentLength: 1024 * 1024,
        // As every outbound call: a redirect is answered, not followed (it would also turn the POST into a GET).
        maxRedirects: 0,
        headers: config.llmApiKey ? { authorization: `Bearer ${config.llmApiKey}` } : {},
      },
    );
    const content = (response.data as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]
      ?.message?.content;
    if (typeof content !== 'string') {
      // Some gateways answer 200 with the error body a refusal would have.
      const said = refusalReason(response.data);
      return { ok: false, reason: `LLM reply has no choices[0].message.content${said ? `: ${said}` : ''}` };
    }
    // A stored text cannot hold U+0000 (PostgreSQL refuses it), and a model has no reason to send one.
    const text = content.replaceAll('\u0000', '').trim();
    // Nor a lone surrogate, which UTF-8 would store as U+FFFD: the generation fails rather than alter the text.
    const issue = textIssue(text);
    if (issue) return { ok: false, reason: `LLM reply refused: ${issue.msg}` };
    return { ok: true, text, generated: true };
  } catch (error) {
    // The timeout itself is an abort (ERR_CANCELED, "canceled") or axios's own (ECONNABORTED, ETIMEDOUT).
    const code = (error as { code?: string }).code;
    if (code === 'ERR_CANCELED' || code === 'ECONNABORTED' || code === 'ETIMEDOUT') {
      return {
        ok: false,
        reason: `The LLM did not answer within ${config.llmTimeoutMs} ms (DEVDATA_LLM_TIMEOUT_MS)`,
      };
    }
    const response = axios.isAxiosError(error) ? error.response : undefined;
    // An endpoint that refuses says why (a model not pulled, a wrong key): that is what to fix.
    const said = response ? refusalReason(response.data) : '';
    const redirect = response ? redirectNote(url, response.headers.location, 'fix DEVDATA_LLM_BASE_URL') : '';
    return {
      ok: false,
      reason: `LLM request failed${response ? ` with HTTP ${response.status}` : ''}${redirect || `: ${said || (error as Error).message}`}`,
    };
  }
}
