// How the trace views write durations, costs, times and attribute values: short, exact enough to
// compare at a glance, and the same in the list, the waterfall and the span panel.

/** A duration given in milliseconds: `850 µs`, `12.4 ms`, `1.52 s`, `2 min 3.4 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms === 0) return '0';
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${Number(ms.toPrecision(3))} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toPrecision(3))} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Number(((ms - minutes * 60_000) / 1000).toFixed(1))} s`;
}

/** A cost as stored (no currency is kept): four significant digits, two decimals past 1000. */
export function formatCost(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return '—';
  if (cost === 0) return '0';
  if (Math.abs(cost) >= 1000) return cost.toFixed(2);
  return String(Number(cost.toPrecision(4)));
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** A Unix time in nanoseconds, in local time to the millisecond: `2026-11-22 14:05:00.123`. */
export function formatTime(unixNano: number): string {
  const date = new Date(unixNano / 1e6);
  if (Number.isNaN(date.getTime())) return '—';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** An attribute value as text: strings as they are, anything else as its JSON. */
export function attributeText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
