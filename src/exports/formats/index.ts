// The file formats an export is written in, by name. Parquet is not here yet: creating a Parquet
// export is refused (src/exports/export-jobs.ts) until its format implements ./format.ts.
import type { ExportFormatName } from '../../storage/exports/export-jobs.js';
import { csvFormat } from './csv.js';
import type { ExportFormat } from './format.js';
import { ndjsonFormat } from './ndjson.js';

const FORMATS: Partial<Record<ExportFormatName, ExportFormat>> = { ndjson: ndjsonFormat, csv: csvFormat };

/** The format `name`; undefined when it is not available yet. */
export function formatOf(name: ExportFormatName): ExportFormat | undefined {
  return FORMATS[name];
}
