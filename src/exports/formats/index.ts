// The file formats an export is written in, by name. A name the document lists without a format
// here would be refused at creation (src/exports/export-jobs.ts); every one has a format.
import type { ExportFormatName } from '../../storage/exports/export-jobs.js';
import { csvFormat } from './csv.js';
import type { ExportFormat } from './format.js';
import { ndjsonFormat } from './ndjson.js';
import { parquetFormat } from '../parquet/parquet-format.js';

const FORMATS: Partial<Record<ExportFormatName, ExportFormat>> = { ndjson: ndjsonFormat, csv: csvFormat, parquet: parquetFormat };

/** The format `name`; undefined when it is not available yet. */
export function formatOf(name: ExportFormatName): ExportFormat | undefined {
  return FORMATS[name];
}
