// A time-series chart of the metrics and spend views: uPlot, loaded by a dynamic import() so the
// first view stays small, drawn on a canvas described by its aria-label, with a legend and a data
// table of the same numbers for those who cannot see the canvas (or want the figures). Lines, or
// stacked bands (each series drawn on top of the ones before it, as uPlot's stacking demo does).
import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import { seriesSummaries, type ChartData, type SeriesSummary } from '../analytics-series';
import { axisTimeLabels, formatDateTime, formatDay, zoneName, type TimeZone } from '../time-format';
import { useTimeZone } from '../use-time-zone';

/** Line colours, distinguishable and dark enough to read against white; "Other" is grey. */
const COLOURS = ['#0a58ca', '#b42318', '#1a7f37', '#8250df', '#bc4c00', '#0e7490', '#a2145f', '#4d5b00'];
const OTHER_COLOUR = '#6e7781';
/** The same hues made light enough to read against the dark theme's background. */
const DARK_COLOURS = ['#6ea8fe', '#ff8a80', '#56d364', '#c297ff', '#ffa657', '#4fd1e0', '#f778ba', '#c5d86d'];
const DARK_OTHER_COLOUR = '#9ea7b3';

const DARK_QUERY = '(prefers-color-scheme: dark)';

function darkScheme(): boolean {
  return typeof matchMedia === 'function' && matchMedia(DARK_QUERY).matches;
}

/** Re-renders when the colour scheme changes, so the canvas follows the page's colours. */
function useDarkScheme(): boolean {
  const [dark, setDark] = useState(darkScheme);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const query = matchMedia(DARK_QUERY);
    const onChange = () => setDark(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return dark;
}
const HEIGHT = 240;

export function seriesColour(index: number, label: string, otherLabel?: string, dark = darkScheme()): string {
  if (label === otherLabel) return dark ? DARK_OTHER_COLOUR : OTHER_COLOUR;
  const colours = dark ? DARK_COLOURS : COLOURS;
  return colours[index % colours.length];
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
  /** Stacked bands instead of lines: the top edge is the buckets' total. */
  stacked?: boolean;
  /** The buckets are UTC days: the axis and the table write UTC dates. */
  utcDays?: boolean;
}

/** A bucket's start as the table and the description write it (UTC days are days of UTC, whatever the zone chosen). */
function bucketText(time: number, utcDays: boolean | undefined, zone: TimeZone): string {
  return utcDays ? formatDay(time * 1000, 'UTC') : formatDateTime(time * 1000, zone);
}

/** Each series' values added to those of the series before it (a missing value adds nothing). */
function stackedValues(series: ChartData['series']): Array<Array<number | null>> {
  const sums = series.length === 0 ? [] : series[0].values.map(() => 0);
  return series.map((line) => line.values.map((value, index) => (sums[index] += value ?? 0)));
}

const DAY_STEPS = [86_400, 2 * 86_400, 7 * 86_400, 14 * 86_400, 28 * 86_400];
const INTEGER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];

function describe(props: ChartProps, zone: TimeZone): string {
  const { data } = props;
  const first = bucketText(data.times[0], props.utcDays, zone);
  const last = bucketText(data.times[data.times.length - 1], props.utcDays, zone);
  const summary = props.summary ?? 'total';
  const summaries = seriesSummaries(data, summary)
    .map((value, index) => `${data.series[index].label}: ${summary} ${value === null ? 'none' : `${props.format(value)} ${props.unit}`}`)
    .join('; ');
  return `${props.title}: ${data.series.length} series over ${data.times.length} buckets from ${first} to ${last}${props.stacked ? ', stacked' : ''}. ${summaries}. The data table below lists every value.`;
}

export function Chart(props: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string>();
  const { data, unit, format, otherLabel, integer, stacked, utcDays } = props;
  const summary = props.summary ?? 'total';
  const zone = useTimeZone();
  const dark = useDarkScheme();

  useEffect(() => {
    let plot: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    import('uplot').then(
      ({ default: UPlot }) => {
        const element = host.current;
        if (cancelled || !element) return;
        // The axes in the page's colours (light or dark theme).
        const style = getComputedStyle(element);
        const ink = style.getPropertyValue('--fg').trim() || '#1b1f24';
        const grid = { stroke: style.getPropertyValue('--line').trim() || '#d0d7de', width: 1 };
        const timeZone = utcDays ? 'UTC' : zone;
        const listedIndexes = data.times.flatMap((_time, index) => (data.listed[index] ? [index] : []));
        const [onlyTime] = data.times.length === 1 ? data.times : [];
        const options: uPlot.Options = {
          width: Math.max(element.clientWidth, 300),
          height: HEIGHT,
          legend: { show: false },
          cursor: { drag: { x: false, y: false } },
          // Ticks fall on whole hours and days of the zone the times are written in.
          tzDate: timeZone === 'UTC' ? (seconds) => UPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC') : undefined,
          scales: {
            // One bucket: half a bucket either side, or the axis would have no width.
            x:
              onlyTime === undefined
                ? { time: true }
                : { time: true, range: [onlyTime - data.bucketSeconds / 2, onlyTime + data.bucketSeconds / 2] },
            y: { range: (_plot, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
          },
          // Each series filled down to the one below it (the first down to 0).
          bands: stacked
            ? data.series.slice(1).map((_series, index) => ({ series: [index + 2, index + 1] as [number, number] }))
            : undefined,
          axes: [
            // Daily buckets: ticks on whole days (or weeks), never between two buckets.
            {
              label: utcDays ? 'Day (UTC)' : `Time (${zoneName(zone)})`,
              space: 80,
              incrs: utcDays ? DAY_STEPS : undefined,
              stroke: ink,
              grid,
              ticks: grid,
              // 24-hour times in the chosen zone, as every other time on the page.
              values: (_plot, splits) => axisTimeLabels(splits, timeZone, utcDays === true),
            },
            {
              label: unit,
              stroke: ink,
              grid,
              ticks: grid,
              size: 80,
              incrs: integer ? INTEGER_STEPS : undefined,
              values: (_plot, splits) => splits.map((value) => (value === null ? '' : format(value))),
            },
          ],
          series: [
            {},
            ...data.series.map((series, index) => ({
              label: series.label,
              stroke: seriesColour(index, series.label, otherLabel, dark),
              width: 2,
              fill: stacked ? `${seriesColour(index, series.label, otherLabel, dark)}99` : undefined,
              // Dots only where the engine listed a bucket: the zeros between are filled in.
              points: { show: true, size: 5, filter: listedIndexes },
              value: (_plot: uPlot, value: number | null) => (value === null ? '–' : format(value)),
            })),
          ],
        };
        const drawn = stacked ? stackedValues(data.series) : data.series.map((series) => series.values);
        plot = new UPlot(options, [data.times, ...drawn], element);
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
  }, [data, unit, format, otherLabel, integer, stacked, utcDays, zone, dark]);

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
        <div ref={host} class="chart-plot" role="img" aria-label={describe(props, zone)} />
      )}
      <ul class="chart-legend" aria-label={`Legend of ${props.title}`}>
        {data.series.map((series, index) => (
          <li key={index}>
            <span class="swatch" aria-hidden="true" style={{ background: seriesColour(index, series.label, otherLabel, dark) }} />
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
              <th scope="col">{utcDays ? 'Day (UTC)' : 'Bucket start'}</th>
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
                <th scope="row">{bucketText(time, utcDays, zone)}</th>
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
