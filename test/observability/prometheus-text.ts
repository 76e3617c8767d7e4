/** One sample of the Prometheus text exposition format: its name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of a scrape (comments skipped). */
export function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name as string] = value as string;
    out.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return out;
}

/** The value of the sample with this name and (at least) these labels; 0 when there is none. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = samples(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}

/** The metric families a scrape declares (`# TYPE name type`), by name. */
export function families(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out[name as string] = type as string;
  return out;
}
