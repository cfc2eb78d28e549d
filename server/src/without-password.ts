/** A URL as an error message shows it: its password, if any, as *** (the message may end up in a log). */
export function withoutPassword(value: string): string {
  if (!URL.canParse(value)) return value;
  const url = new URL(value);
  if (url.password === '') return value;
  url.password = '***';
  return url.href;
}
