// One trace's spans on a time axis, nested under their parents (ui/src/waterfall-layout.ts): a bar
// per span coloured by service with its duration and cost, collapsible subtrees, and a span picked
// by click or keyboard (arrows move, left/right collapse and expand). Only the rows in view are
// rendered, each a fixed height, so a trace of tens of thousands of spans stays responsive.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { components } from '../../../src/generated/engine';
import { formatDuration, formatSingleCost, spanCostCurrency } from '../trace-format';
import { barGeometry, rowWindow, serviceColours, visibleRows, type SpanTree } from '../waterfall-layout';

export type SpanRecord = components['schemas']['SpanRecord'];

export const ROW_HEIGHT = 28;
/** Indentation stops growing past this depth (the depth is still said in the row). */
const MAX_INDENT_DEPTH = 24;
const INDENT = 14;
/** The least room a tick label of the time axis gets, so labels never overlap on a narrow screen. */
const TICK_SPACING_PX = 90;

/** The fractions of the trace's duration the axis marks: 5 ticks on a wide axis, down to 2 on a narrow one. */
export function tickFractions(axisWidth: number): number[] {
  const count = Math.max(2, Math.min(5, Math.floor(axisWidth / TICK_SPACING_PX) + 1));
  return Array.from({ length: count }, (_, index) => index / (count - 1));
}

interface WaterfallProps {
  spans: SpanRecord[];
  tree: SpanTree;
  selected: number | undefined;
  onSelect(span: number): void;
}

export function Waterfall({ spans, tree, selected, onSelect }: WaterfallProps) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const rows = useMemo(() => visibleRows(tree, collapsed), [tree, collapsed]);
  const colours = useMemo(() => serviceColours(spans), [spans]);
  const viewport = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const axis = useRef<HTMLSpanElement>(null);
  const [axisWidth, setAxisWidth] = useState(600);
  const [focusRow, setFocusRow] = useState<number>();

  useLayoutEffect(() => {
    const element = viewport.current;
    if (!element) return;
    setHeight(element.clientHeight);
    const observer = new ResizeObserver(() => {
      setHeight(element.clientHeight);
      if (axis.current) setAxisWidth(axis.current.clientWidth);
    });
    observer.observe(element);
    if (axis.current) setAxisWidth(axis.current.clientWidth);
    return () => observer.disconnect();
  }, []);

  // After a keyboard move the new row's button takes the focus (its row may just have been rendered).
  useEffect(() => {
    if (focusRow === undefined) return;
    viewport.current?.querySelector<HTMLButtonElement>(`[data-row="${focusRow}"] .wf-select`)?.focus({ preventScroll: true });
  }, [focusRow, scrollTop]);

  const toggle = (span: number) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (next.has(span)) next.delete(span);
      else next.add(span);
      return next;
    });

  const moveTo = (rowIndex: number) => {
    const target = Math.min(Math.max(rowIndex, 0), rows.length - 1);
    const element = viewport.current;
    if (element) {
      const top = target * ROW_HEIGHT;
      if (top < element.scrollTop) element.scrollTop = top;
      else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight) element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
      setScrollTop(element.scrollTop);
    }
    onSelect(rows[target].span);
    setFocusRow(target);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const current = rows.findIndex((row) => row.span === selected);
    const page = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    const moves: Record<string, () => void> = {
      ArrowDown: () => moveTo(current + 1),
      ArrowUp: () => moveTo(current - 1),
      PageDown: () => moveTo(current + page),
      PageUp: () => moveTo(current - page),
      Home: () => moveTo(0),
      End: () => moveTo(rows.length - 1),
      ArrowLeft: () => selected !== undefined && tree.children[selected].length > 0 && !collapsed.has(selected) && toggle(selected),
      ArrowRight: () => selected !== undefined && collapsed.has(selected) && toggle(selected),
    };
    const move = moves[event.key];
    if (move && rows.length > 0) {
      event.preventDefault();
      move();
    }
  };

  const { first, last } = rowWindow(scrollTop, height, ROW_HEIGHT, rows.length);
  const shown = rows.slice(first, last + 1);
  const services = [...colours.entries()].filter(([name]) => name !== null || spans.some((span) => span.service_name === null));
  const total = (tree.end - tree.start) / 1e6;

  return (
    <section class="waterfall" aria-labelledby="waterfall-title">
      <h2 id="waterfall-title">Waterfall</h2>
      <ul class="wf-legend" aria-label="Services">
        {services.map(([name, colour]) => (
          <li key={name ?? ''}>
            <span class="wf-swatch" style={{ background: colour }} aria-hidden="true" />
            {name ?? 'no service'}
          </li>
        ))}
      </ul>
      <div class="wf-axis" aria-hidden="true">
        <span class="wf-axis-names">Span</span>
        <span class="wf-axis-time" ref={axis}>
          {tickFractions(axisWidth).map((fraction) => (
            <span key={fraction} class="wf-tick" style={{ left: `${fraction * 100}%` }}>
              {formatDuration(total * fraction)}
            </span>
          ))}
        </span>
      </div>
      <div
        class="wf-viewport"
        ref={viewport}
        tabIndex={0}
        role="region"
        aria-label={`Spans of the trace, ${rows.length} rows shown; arrow keys move, left and right collapse and expand`}
        onScroll={(event) => setScrollTop((event.currentTarget as HTMLDivElement).scrollTop)}
        onKeyDown={onKeyDown}
      >
        <ul class="wf-rows" style={{ height: `${rows.length * ROW_HEIGHT}px` }} data-row-count={rows.length}>
          {shown.map((row, offset) => {
            const rowIndex = first + offset;
            const span = spans[row.span];
            const { left, width } = barGeometry(span, tree);
            const hasChildren = tree.children[row.span].length > 0;
            const isCollapsed = collapsed.has(row.span);
            const isError = span.status_code === 'STATUS_CODE_ERROR';
            const cost = span.cost !== null ? ` · cost ${formatSingleCost(span.cost, spanCostCurrency(span))}` : '';
            const label = `${formatDuration(span.duration_ms)}${cost}${isError ? ' · error' : ''}`;
            // The label goes inside a wide bar (white on the service colour), else beside it.
            const placement = width >= 35 ? 'inside' : left + width <= 65 ? 'after' : 'before';
            return (
              <li
                key={row.span}
                class={row.span === selected ? 'wf-row selected' : 'wf-row'}
                style={{ top: `${rowIndex * ROW_HEIGHT}px` }}
                data-row={rowIndex}
                data-span-id={span.span_id}
                data-depth={row.depth}
                aria-level={row.depth + 1}
                aria-posinset={rowIndex + 1}
                aria-setsize={rows.length}
                onClick={() => onSelect(row.span)}
              >
                <span class="wf-name" style={{ paddingLeft: `${Math.min(row.depth, MAX_INDENT_DEPTH) * INDENT}px` }}>
                  {hasChildren ? (
                    <button
                      type="button"
                      class="wf-toggle"
                      aria-expanded={!isCollapsed}
                      aria-label={`${isCollapsed ? 'Expand' : 'Collapse'} ${span.span_name}`}
                      onClick={(event) => {
                        event.stopPropagation();
                        toggle(row.span);
                      }}
                    >
                      {isCollapsed ? '▸' : '▾'}
                    </button>
                  ) : (
                    <span class="wf-toggle-space" aria-hidden="true" />
                  )}
                  <button type="button" class="wf-select" aria-pressed={row.span === selected} onClick={() => onSelect(row.span)}>
                    <span class="wf-swatch" style={{ background: colours.get(span.service_name) }} aria-hidden="true" />
                    {row.depth > MAX_INDENT_DEPTH && <span class="muted">{`[${row.depth}] `}</span>}
                    {span.span_name}
                    {tree.orphan[row.span] && <span class="wf-note"> (parent not stored)</span>}
                    {isCollapsed && <span class="wf-note">{` (+${tree.children[row.span].length})`}</span>}
                  </button>
                </span>
                <span class="wf-track">
                  <span
                    class={isError ? 'wf-bar error' : 'wf-bar'}
                    style={{ left: `${left}%`, width: `${width}%`, background: colours.get(span.service_name) }}
                  >
                    {placement === 'inside' && <span class="wf-label inside">{label}</span>}
                  </span>
                  {placement === 'after' && (
                    <span class="wf-label" style={{ left: `calc(${left + width}% + 4px)` }}>
                      {label}
                    </span>
                  )}
                  {placement === 'before' && (
                    <span class="wf-label" style={{ right: `calc(${100 - left}% + 4px)` }}>
                      {label}
                    </span>
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}
