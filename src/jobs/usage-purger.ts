// The usage rows' retention (docs/usage-and-quotas.md): every USAGE_PURGE_INTERVAL_SECONDS, one
// pass deletes the hourly usage rows older than USAGE_RETENTION_DAYS, oldest first, in batches of
// USAGE_PURGE_BATCH_SIZE; safe beside other instances' passes (purgeUsageBatch).
import { purgeUsageBatch } from '../storage/usage/usage-purge.js';
import { BatchPurger, type BatchPurgerDeps } from './batch-purger.js';

export class UsagePurger extends BatchPurger {
  constructor(deps: BatchPurgerDeps) {
    super(deps, { rows: 'usage_rows', label: 'usage' }, purgeUsageBatch);
  }
}
