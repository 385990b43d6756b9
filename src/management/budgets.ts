// Budget operations (openapi/management.yaml, "Budgets"): createBudget, listBudgets, getBudget,
// updateBudget and deleteBudget. Every answer carries the budget's status at the service's clock
// (src/storage/budgets/budget-status.ts), which also times the changes: a budget created after a
// period ended is not evaluated for it, by the same clock the evaluator runs on.
import { budgetFields } from '../accounts/audit-fields.js';
import * as budgets from '../accounts/budgets.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import { budgetStatus } from '../storage/budgets/budget-status.js';
import {
  BUDGET_ORDER,
  findBudget,
  listBudgets as listBudgetRows,
  type BudgetChanges,
  type BudgetRecord,
} from '../storage/budgets/budgets.js';
import { toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];

async function budgetBody({ knex, clock = Date.now }: ServiceDeps, budget: BudgetRecord): Promise<Schemas['Budget']> {
  const status = await budgetStatus(knex, budget, clock());
  return {
    id: budget.id,
    organization_id: budget.organization_id,
    // The fields an audit event shows are the API's own.
    ...budgetFields(budget),
    status: {
      current_period: { start: toIsoRequired(status.period.startMs), end: toIsoRequired(status.period.endMs) },
      spend: status.spend,
      percent: status.percent,
      thresholds_crossed: status.crossings.map((crossing) => ({
        threshold_percent: crossing.threshold_percent,
        crossed_at: toIsoRequired(crossing.crossed_at),
        spend: crossing.spend,
      })),
    },
    created_at: toIsoRequired(budget.created_at),
    updated_at: toIsoRequired(budget.updated_at),
  };
}

export function listBudgets(deps: ServiceDeps): OperationHandler<operations['listBudgets']> {
  return async (request) => {
    const page = pageRequest(request, BUDGET_ORDER, [request.params.org_id]);
    const found = await listBudgetRows(deps.knex, request.params.org_id, page);
    const data: Schemas['Budget'][] = [];
    for (const budget of found.items) data.push(await budgetBody(deps, budget));
    const body: Schemas['BudgetList'] = {
      data,
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function createBudget(deps: ServiceDeps): OperationHandler<operations['createBudget']> {
  return async (request) => {
    const sent = request.body;
    const budget = await budgets.createBudget(
      deps.knex,
      request.params.org_id,
      {
        name: sent.name,
        application_id: sent.application_id ?? null,
        amount: sent.amount,
        currency: sent.currency,
        period: sent.period,
        thresholds: sent.thresholds ?? [...budgets.DEFAULT_THRESHOLDS],
        enabled: sent.enabled ?? true,
      },
      (deps.clock ?? Date.now)(),
    );
    return { status: 201, body: await budgetBody(deps, budget) };
  };
}

export function getBudget(deps: ServiceDeps): OperationHandler<operations['getBudget']> {
  return async (request) => {
    const budget = await findBudget(deps.knex, request.params.org_id, request.params.budget_id);
    if (!budget) throw new NotFoundError(budgets.BUDGET_NOT_FOUND);
    return { status: 200, body: await budgetBody(deps, budget) };
  };
}

export function updateBudget(deps: ServiceDeps): OperationHandler<operations['updateBudget']> {
  return async (request) => {
    const sent = request.body;
    const changes: BudgetChanges = {};
    if (sent.name !== undefined) changes.name = sent.name;
    if (sent.application_id !== undefined) changes.application_id = sent.application_id;
    if (sent.amount !== undefined) changes.amount = sent.amount;
    if (sent.currency !== undefined) changes.currency = sent.currency;
    if (sent.period !== undefined) changes.period = sent.period;
    if (sent.thresholds !== undefined) changes.thresholds = sent.thresholds;
    if (sent.enabled !== undefined) changes.enabled = sent.enabled;
    const budget = await budgets.updateBudget(
      deps.knex,
      request.params.org_id,
      request.params.budget_id,
      changes,
      (deps.clock ?? Date.now)(),
    );
    return { status: 200, body: await budgetBody(deps, budget) };
  };
}

export function deleteBudget({ knex, clock = Date.now }: ServiceDeps): OperationHandler<operations['deleteBudget']> {
  return async (request) => {
    await budgets.deleteBudget(knex, request.params.org_id, request.params.budget_id, clock());
    return { status: 204 };
  };
}
