// The audit log's retention (docs/audit-log.md): every AUDIT_PURGE_INTERVAL_SECONDS, one pass
// deletes the events older than AUDIT_RETENTION_DAYS, oldest first, in batches of
// AUDIT_PURGE_BATCH_SIZE. A batch deletes by id only events past retention (purgeAuditBatch), so
// two instances taking the same batch delete each event once between them.
import { purgeAuditBatch } from '../storage/audit/audit-events.js';
import { BatchPurger, type BatchPurgerDeps } from './batch-purger.js';

export type AuditPurgerDeps = BatchPurgerDeps;

export class AuditPurger extends BatchPurger {
  constructor(deps: AuditPurgerDeps) {
    super(deps, { rows: 'audit_events', label: 'audit' }, purgeAuditBatch);
  }
}
