// What a read of the folded trace figures (trace-figure-reads.ts) works with: what a request asks
// for, the cells it is answered in, the window's whole hours and partial edges (which the planner,
// src/traces/read-planner.ts, decides), and the totals a cell's figure gathers before its ranks are
// resolved (trace-figure-ranks.ts).
import type { Knex } from 'knex';
import { dialectFor } from '../../sql/index.js';
import type { SqlDialect } from '../../sql/dialect.js';
import { BINS_PER_COARSE_GROUP, serviceKeyOf, type TraceFigure } from './trace-figures.js';
import type { PlannedFold } from '../read-sources.js';

/** Which root services a read covers, and how: all together, each apart, or all but some together. */
export type ServiceCells = { kind: 'all' } | { kind: 'each' } | { kind: 'others'; services: Array<string | null> };

export interface FigureCellQuery {
  applicationId: string;
  startNs: bigint;
  endNs: bigint;
  figures: TraceFigure[];
  /** A bucket's width (a multiple of an hour, the window starting on an hour); null: the window is one bucket. */
  widthNs: bigint | null;
  services: ServiceCells;
  /** The 0-based ranks (ascending order) whose values a cell's figure needs, given how many values it has. */
  ranksFor: (figure: TraceFigure, count: number) => number[];
}

export interface CellFigure {
  sum: number;
  /** Σ(x − mean)², the population variance times the count. */
  squaredDeviations: number;
  byRank: Map<number, number>;
}

export interface FigureCell {
  /** 0-based index of the bucket from the window's start. */
  bucket: number;
  /** The root service ('each'); null otherwise or for roots without one. */
  service: string | null;
  count: number;
  figures: Map<TraceFigure, CellFigure>;
}

/** A bin group of one cell's figure: the folded values left (after stale ones) and the values put in. */
export interface BinGroup {
  group: number;
  firstBin: number;
  lastBin: number;
  stored: number;
  /** The origin of the group's bins (one coarse group), and Σ(x − origin), Σ(x − origin)² over its values. */
  origin: number;
  sum: number;
  sumSq: number;
  /** Bounds of the folded values (they only widen): equal means every folded value is this one. */
  low: number;
  high: number;
  staleTraceIds: string[];
  added: number[];
}

export interface CellFigureTotals {
  groups: Map<number, BinGroup>;
}

export interface CellTotals {
  bucket: number;
  service: string | null;
  figures: Map<TraceFigure, CellFigureTotals>;
}

/** One read of the folded figures: the request, the fold's hours as planned (src/traces/read-planner.ts) and the bin grouping. */
export interface FigureRead {
  query: FigureCellQuery;
  dialect: SqlDialect;
  firstHour: bigint;
  endHour: bigint;
  startHour: bigint;
  widthHours: bigint | null;
  binsPerGroup: number;
  edges: Array<[bigint, bigint]>;
}

/** The read of a request over the hours the planner gave the fold. */
export function figureRead(knex: Knex, query: FigureCellQuery, fold: PlannedFold): FigureRead {
  const manyCells = query.widthNs !== null || query.services.kind === 'each';
  return {
    query,
    dialect: dialectFor(knex),
    firstHour: fold.firstHour,
    endHour: fold.endHour,
    startHour: fold.startHour,
    widthHours: fold.widthHours,
    // Fewer histogram rows to sum where there are many cells, more values to read per rank; either
    // way a group lies inside one coarse group, so that its bins share one origin.
    binsPerGroup: manyCells ? BINS_PER_COARSE_GROUP : 1,
    edges: fold.edges,
  };
}

/** The bucket of a folded hour. */
export function bucketOfHour(plan: FigureRead, hour: bigint): number {
  return plan.widthHours === null ? 0 : Number((hour - plan.startHour) / plan.widthHours);
}

/** The bucket of a root start. */
export function bucketOfStart(plan: FigureRead, rootStartNs: bigint): number {
  const { startNs, widthNs } = plan.query;
  return widthNs === null ? 0 : Number((rootStartNs - startNs) / widthNs);
}

export function selectsService(services: ServiceCells, service: string | null): boolean {
  return services.kind !== 'others' || !services.services.includes(service);
}

/** The service keys a read leaves out (`others`): those a fold can have folded. */
export function excludedKeys(services: ServiceCells): string[] {
  if (services.kind !== 'others') return [];
  return services.services.map(serviceKeyOf).filter((key): key is string => key !== undefined);
}

/** The hours [from, to) of a cell. */
export function hoursOf(plan: FigureRead, cell: CellTotals): [bigint, bigint] {
  if (plan.widthHours === null) return [plan.firstHour, plan.endHour];
  const from = plan.startHour + BigInt(cell.bucket) * plan.widthHours;
  const to = from + plan.widthHours;
  return [from > plan.firstHour ? from : plan.firstHour, to < plan.endHour ? to : plan.endHour];
}
