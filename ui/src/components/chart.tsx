// A time-series chart of the metrics view: uPlot, loaded by a dynamic import() so the first view
// stays small, drawn on a canvas described by its aria-label, with a legend and a data table of
// the same numbers for those who cannot see the canvas (or want the figures).
import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import { seriesSummaries, type ChartData, type SeriesSummary } from '../analytics-series';
import { formatTime } from '../metrics-format';

/** Line colours, distinguishable and dark enough to read against white; "Other" is grey. */
const COLOURS = ['#0a58ca', '#b42318', '#1a7f37', '#8250df', '#bc4c00', '#0e7490', '#a2145f', '#4d5b00'];
const OTHER_COLOUR = '#6e7781';
const HEIGHT = 240;

export function seriesColour(index: number, label: string, otherLabel?: string): string {
  return label === otherLabel ? OTHER_COLOUR : COLOURS[index % COLOURS.length];
}

export interface ChartProps {
  /** Unique on the page: names the chart's parts. */
  id: string;
  title: string;
  data: ChartData;
  /** The unit of the values, for the axis, the legend and the table ("ms", "cost", "traces"). */
  unit: string;
  format(value: number): string;
  /** The label of the folded groups' series, drawn in grey. */
  otherLabel?: string;
  /** What the legend says of each series (default: its total). */
  summary?: SeriesSummary;
  /** Whole numbers only (counts): the axis has no fractional ticks. */
  integer?: boolean;
}

const INTEGER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];

function describe(props: ChartProps): string {
  const { data } = props;
  const first = new Date(data.times[0] * 1000);
  const last = new Date(data.times[data.times.length - 1] * 1000);
  const summary = props.summary ?? 'total';
  const summaries = seriesSummaries(data, summary)
    .map((value, index) => `${data.series[index].label}: ${summary} ${value === null ? 'none' : `${props.format(value)} ${props.unit}`}`)
    .join('; ');
  return `${props.title}: ${data.series.length} series over ${data.times.length} buckets from ${formatTime(first)} to ${formatTime(last)}. ${summaries}. The data table below lists every value.`;
}

export function Chart(props: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string>();
  const { data, unit, format, otherLabel, integer } = props;
  const summary = props.summary ?? 'total';

  useEffect(() => {
    let plot: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    import('uplot').then(
      ({ default: UPlot }) => {
        const element = host.current;
        if (cancelled || !element) return;
        const listedIndexes = data.times.flatMap((_time, index) => (data.listed[index] ? [index] : []));
        const options: uPlot.Options = {
          width: Math.max(element.clientWidth, 300),
          height: HEIGHT,
          legend: { show: false },
          cursor: { drag: { x: false, y: false } },
          scales: { x: { time: true }, y: { range: (_plot, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
          axes: [
            { space: 80 },
            {
              label: unit,
              size: 80,
              incrs: integer ? INTEGER_STEPS : undefined,
              values: (_plot, splits) => splits.map((value) => (value === null ? '' : format(value))),
            },
          ],
          series: [
            {},
            ...data.series.map((series, index) => ({
              label: series.label,
              stroke: seriesColour(index, series.label, otherLabel),
              width: 2,
              // Dots only where the engine listed a bucket: the zeros between are filled in.
              points: { show: true, size: 5, filter: listedIndexes },
              value: (_plot: uPlot, value: number | null) => (value === null ? '–' : format(value)),
            })),
          ],
        };
        plot = new UPlot(options, [data.times, ...data.series.map((series) => series.values)], element);
        observer = new ResizeObserver(() => plot?.setSize({ width: Math.max(element.clientWidth, 300), height: HEIGHT }));
        observer.observe(element);
      },
      (error: unknown) => setProblem(`The chart could not be loaded: ${error instanceof Error ? error.message : String(error)}`),
    );
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [data, unit, format, otherLabel, integer]);

  const summaries = seriesSummaries(data, summary);
  const rows = data.times.map((time, index) => ({ time, index })).filter(({ index }) => data.listed[index]);
  return (
    <figure class="chart" id={props.id} data-series-count={data.series.length}>
      <figcaption id={`${props.id}-title`}>{props.title}</figcaption>
      {problem ? (
        <p role="alert" class="error">
          {problem}
        </p>
      ) : (
        <div ref={host} class="chart-plot" role="img" aria-label={describe(props)} />
      )}
      <ul class="chart-legend" aria-label={`Legend of ${props.title}`}>
        {data.series.map((series, index) => (
          <li key={index}>
            <span class="swatch" aria-hidden="true" style={{ background: seriesColour(index, series.label, otherLabel) }} />
            <span class="legend-label">{series.label}</span>{' '}
            <span class="muted">
              {summary} {summaries[index] === null ? '–' : `${format(summaries[index])} ${unit}`}
            </span>
          </li>
        ))}
      </ul>
      <details class="chart-table">
        <summary>Data table of “{props.title}”</summary>
        <table>
          <caption class="visually-hidden">{props.title}, buckets holding data</caption>
          <thead>
            <tr>
              <th scope="col">Bucket start</th>
              {data.series.map((series, column) => (
                <th scope="col" class="number" key={column}>
                  {series.label} ({unit})
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(({ time, index }) => (
              <tr key={time}>
                <th scope="row">{formatTime(new Date(time * 1000))}</th>
                {data.series.map((series, column) => {
                  const value = series.values[index];
                  return (
                    <td class="number" key={column} data-value={value ?? ''}>
                      {value === null ? '–' : format(value)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
