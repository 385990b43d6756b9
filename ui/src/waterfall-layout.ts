// The waterfall's layout, apart from any view so it can be tested alone: the span tree (built once
// per trace, linear in the spans), the rows left visible by the collapsed subtrees, the bars'
// place on the time axis, service colours, and which rows a scrolled viewport shows. Spans arrive
// in start order (GET /traces/{trace_id}), so children keep that order without sorting.

/** What the layout reads of a span (a SpanRecord of openapi/engine.yaml has these and more). */
export interface LayoutSpan {
  span_id: string;
  parent_span_id: string | null;
  span_start_time_unix_nano: number;
  span_end_time_unix_nano: number;
  service_name: string | null;
}

export interface SpanTree {
  /** Indices of the spans shown at the top level: roots, orphans and cycle breakers, in start order. */
  roots: number[];
  /** `children[i]`: the indices of the spans whose parent is span i, in start order. */
  children: number[][];
  /** `orphan[i]`: span i names a parent that is not stored (shown at the top level). */
  orphan: boolean[];
  /** Earliest start and latest end over the spans, in Unix nanoseconds (as parsed: double precision). */
  start: number;
  end: number;
}

export function buildSpanTree(spans: readonly LayoutSpan[]): SpanTree {
  const indexById = new Map<string, number>();
  spans.forEach((span, index) => {
    if (!indexById.has(span.span_id)) indexById.set(span.span_id, index);
  });
  const children: number[][] = spans.map(() => []);
  const orphan: boolean[] = spans.map(() => false);
  const topLevel: boolean[] = spans.map(() => false);
  const parentIndex: number[] = spans.map(() => -1);
  let start = Infinity;
  let end = -Infinity;
  spans.forEach((span, index) => {
    start = Math.min(start, span.span_start_time_unix_nano);
    end = Math.max(end, span.span_end_time_unix_nano, span.span_start_time_unix_nano);
    const parent = span.parent_span_id === null ? undefined : indexById.get(span.parent_span_id);
    if (parent === undefined || parent === index) {
      topLevel[index] = true;
      orphan[index] = span.parent_span_id !== null && parent === undefined;
    } else {
      children[parent].push(index);
      parentIndex[index] = parent;
    }
  });
  // Spans in a parent cycle are reached from no top-level span: one span of each cycle is lifted
  // to the top level (its subtree with it), so every span is shown exactly once.
  const reached: boolean[] = spans.map(() => false);
  const walk = (from: number) => {
    const stack = [from];
    while (stack.length > 0) {
      const index = stack.pop() as number;
      if (reached[index]) continue;
      reached[index] = true;
      for (const child of children[index]) stack.push(child);
    }
  };
  topLevel.forEach((isTop, index) => isTop && walk(index));
  for (let index = 0; index < spans.length; index += 1) {
    if (reached[index]) continue;
    // Up the parents until one repeats: that one is on the cycle.
    const seen = new Set<number>();
    let onCycle = index;
    while (!seen.has(onCycle)) {
      seen.add(onCycle);
      onCycle = parentIndex[onCycle];
    }
    const parent = parentIndex[onCycle];
    children[parent] = children[parent].filter((child) => child !== onCycle);
    topLevel[onCycle] = true;
    walk(onCycle);
  }
  const roots = topLevel.flatMap((isTop, index) => (isTop ? [index] : []));
  return { roots, children, orphan, start: spans.length ? start : 0, end: spans.length ? end : 0 };
}

export interface WaterfallRow {
  /** The span's index in the trace's spans. */
  span: number;
  depth: number;
}

/** The rows shown, depth first in start order, skipping the descendants of collapsed spans. */
export function visibleRows(tree: SpanTree, collapsed: ReadonlySet<number>): WaterfallRow[] {
  const rows: WaterfallRow[] = [];
  const stack: WaterfallRow[] = [];
  for (let index = tree.roots.length - 1; index >= 0; index -= 1) stack.push({ span: tree.roots[index], depth: 0 });
  while (stack.length > 0) {
    const row = stack.pop() as WaterfallRow;
    rows.push(row);
    if (collapsed.has(row.span)) continue;
    const children = tree.children[row.span];
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push({ span: children[index], depth: row.depth + 1 });
  }
  return rows;
}

/** Where a span's bar lies on the trace's time axis, in percent of its width (at least a sliver). */
export function barGeometry(span: LayoutSpan, tree: SpanTree): { left: number; width: number } {
  const total = tree.end - tree.start;
  if (total <= 0) return { left: 0, width: 100 };
  const left = ((span.span_start_time_unix_nano - tree.start) / total) * 100;
  const width = ((Math.max(span.span_end_time_unix_nano, span.span_start_time_unix_nano) - span.span_start_time_unix_nano) / total) * 100;
  return { left: Math.min(Math.max(left, 0), 100), width: Math.max(width, 0.15) };
}

/** Colours that keep white text at a contrast of 4.5:1 or more (WCAG AA). */
export const SERVICE_PALETTE = [
  '#0b5cad',
  '#6929c4',
  '#007d79',
  '#a2191f',
  '#8a3800',
  '#198038',
  '#9f1853',
  '#005d5d',
  '#1d3f8f',
  '#6f4e00',
];
export const NO_SERVICE_COLOUR = '#57606a';

/** A colour per service, in the order of the services' names (so a trace always looks the same). */
export function serviceColours(spans: readonly LayoutSpan[]): Map<string | null, string> {
  const names = [...new Set(spans.map((span) => span.service_name))].filter((name): name is string => name !== null).sort();
  const colours = new Map<string | null, string>(names.map((name, index) => [name, SERVICE_PALETTE[index % SERVICE_PALETTE.length]]));
  colours.set(null, NO_SERVICE_COLOUR);
  return colours;
}

/** The rows a viewport shows when scrolled to `scrollTop`, with `overscan` rows either side. */
export function rowWindow(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  rowCount: number,
  overscan = 8,
): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(rowCount - 1, Math.ceil((scrollTop + viewportHeight) / rowHeight) + overscan);
  return { first, last };
}
