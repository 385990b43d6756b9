/** A top-level field of an exported record (SpanRecord or TraceSummary of openapi/engine.yaml), every one nullable. */
export interface ExportColumn {
  name: string;
  /** integer: may exceed 2^53 (the *_unix_nano fields), given as bigint or as a decimal string; json: an object or array. */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'json';
}

/** A file format: the bytes of a file written batch by batch, resumable after a crash from `state` (JSON). */
export interface ExportFormat {
  readonly name: 'ndjson' | 'csv' | 'parquet';
  readonly contentType: string;
  readonly extension: string;
  /** The bytes that open the file, and the state the first batch starts from. */
  head(columns: readonly ExportColumn[]): { bytes: Uint8Array; state: unknown };
  /** One batch of records (plain objects keyed by column name), appended at byte `offset` of the file. */
  batch(
    columns: readonly ExportColumn[],
    records: ReadonlyArray<Record<string, unknown>>,
    state: unknown,
    offset: number,
  ): { bytes: Uint8Array; state: unknown };
  /** The bytes that close the file (Parquet: the footer). */
  tail(columns: readonly ExportColumn[], state: unknown, offset: number): Uint8Array;
}
