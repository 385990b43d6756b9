// Exports what the trace list shows (docs/dashboard.md, "Exports"): the traces of the window and
// filter (with the child-span switch), or the spans the filter matches, as CSV, NDJSON or Parquet,
// gzip-compressed if asked.
// The job is made by the service in the background (engine `createExport`); the panel follows it
// until it has succeeded and then offers its file through a download link (`createExportLink`),
// a plain same-origin link the browser saves without the page holding the file.
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../src/generated/engine';
import { call, engine } from '../api';
import { formatCount } from '../metrics-format';
import type { FilterNode } from '../view-query';
import { ActionError } from './action-error';
import { useAction } from './use-action';

type ExportJob = components['schemas']['ExportJob'];
type Grain = components['schemas']['ExportGrain'];
type Format = components['schemas']['ExportFormat'];

const FORMATS: ReadonlyArray<[Format, string]> = [
  ['csv', 'CSV'],
  ['ndjson', 'NDJSON'],
  ['parquet', 'Parquet'],
];

/** How often a job still queued or running is read again. */
const FOLLOW_MS = 1000;

interface ExportPanelProps {
  app: string;
  filter: FilterNode | undefined;
  searchChildren: boolean;
  /** The window to export, read when the export is made (a quick range ends then). */
  window: () => { start_time: string; end_time: string };
}

export function ExportPanel({ app, filter, searchChildren, window }: ExportPanelProps) {
  const [grain, setGrain] = useState<Grain>('traces');
  const [format, setFormat] = useState<Format>('csv');
  const [gzip, setGzip] = useState(false);
  const [job, setJob] = useState<ExportJob>();
  const [link, setLink] = useState<string>();
  const action = useAction();
  const header = { 'X-Vendor-App-Id': app };

  // Follows a job until it has finished; a failed read is tried again at the next turn.
  useEffect(() => {
    if (!job || (job.state !== 'queued' && job.state !== 'running')) return;
    const timer = setTimeout(() => {
      call(engine.GET('/engine/exports/{export_id}', { params: { header, path: { export_id: job.id } } })).then(setJob, () =>
        setJob({ ...job }),
      );
    }, FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [job]);

  // A succeeded job's file, through a link (an hour, or until the result expires).
  useEffect(() => {
    if (job?.state !== 'succeeded') return;
    void action.run(async () => {
      const made = await call(engine.POST('/engine/exports/{export_id}/links', { params: { header, path: { export_id: job.id } } }));
      setLink(made.download_path);
    });
  }, [job?.id, job?.state]);

  const start = (event: Event) => {
    event.preventDefault();
    setJob(undefined);
    setLink(undefined);
    void action.run(async () => {
      const body = {
        grain,
        format,
        ...(filter === undefined ? {} : { filter }),
        ...(grain === 'traces' ? { search_child_spans: searchChildren } : {}),
      };
      const compression = gzip && format !== 'parquet' ? 'gzip' : 'none';
      setJob(await call(engine.POST('/engine/exports', { params: { header, query: { ...window(), compression } }, body })));
    });
  };

  return (
    <details class="export-panel">
      <summary>Export</summary>
      <form onSubmit={start} aria-label="Export">
        <fieldset>
          <legend>What</legend>
          <label>
            <input type="radio" name="export-grain" checked={grain === 'traces'} onChange={() => setGrain('traces')} />
            The traces listed (newest first)
          </label>
          <label>
            <input type="radio" name="export-grain" checked={grain === 'spans'} onChange={() => setGrain('spans')} />
            The spans the filter matches
          </label>
        </fieldset>
        <label>
          Format
          <select value={format} onChange={(event) => setFormat((event.target as HTMLSelectElement).value as Format)}>
            {FORMATS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            checked={gzip && format !== 'parquet'}
            disabled={format === 'parquet'}
            onChange={(event) => setGzip((event.target as HTMLInputElement).checked)}
          />
          Compress (gzip; Parquet is compressed inside)
        </label>
        <button type="submit" disabled={action.busy || job?.state === 'queued' || job?.state === 'running'}>
          Export
        </button>
      </form>
      <ActionError error={action.error} context="The export was not made" />
      {job && <ExportState job={job} link={link} />}
    </details>
  );
}

function ExportState({ job, link }: { job: ExportJob; link: string | undefined }) {
  const written = `${formatCount(job.progress.rows)} records, ${formatCount(job.progress.bytes)} bytes`;
  switch (job.state) {
    case 'queued':
    case 'running':
      return (
        <p role="status" data-testid="export-state">
          Export {job.state}: {written} so far…
        </p>
      );
    case 'succeeded':
      return (
        <p role="status" data-testid="export-state">
          Export ready: {written}.{' '}
          {link && (
            <a href={link} download>
              Download {job.format.toUpperCase()} file{job.compression === 'gzip' ? ' (gzip)' : ''}
            </a>
          )}
        </p>
      );
    default:
      return (
        <p role="alert" class="error" data-testid="export-state">
          Export {job.state}
          {job.error ? `: ${job.error.message}` : ''}.
        </p>
      );
  }
}
