// The management API's handler map, keyed by the generated operations of openapi/management.yaml:
// every operation the document declares has its handler (checked at compile time below).
import type { operations } from '../generated/management.js';
import type { HandlerMap } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { createApiKey, deleteApiKey, getApiKey, listApiKeys, rotateApiKeySecret, updateApiKey } from './api-keys.js';
import { createApplication, deleteApplication, getApplication, listApplications, updateApplication } from './applications.js';
import { createAccessToken } from './create-access-token.js';
import { exportOrganizationFocus } from './focus-export.js';
import { getJwks } from './get-jwks.js';
import { addMember, listMembers, removeMember, updateMember } from './members.js';
import { createOrganization, deleteOrganization, getOrganization, listOrganizations, updateOrganization } from './organizations.js';
import { cancelRepricingJob, createRepricingJob, getRepricingJob, listRepricingJobs } from './repricing-jobs.js';
import { getApplicationSpend, getOrganizationSpend } from './spend.js';
import { getApplicationUsage } from './usage.js';
import { getCurrentUser, updateCurrentUser } from './users.js';
import { withAuditTrail } from './audited.js';
import { createBudget, deleteBudget, getBudget, listBudgets, updateBudget } from './budgets.js';
import { listAuditEvents } from './audit-events.js';
import {
  createPriceEntry,
  deletePriceEntry,
  getEffectivePrice,
  getPriceEntry,
  listPriceEntries,
  updatePriceEntry,
} from './price-entries.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  sendTestWebhookEvent,
  updateWebhookEndpoint,
} from './webhook-endpoints.js';

export type ManagementHandlers = HandlerMap<operations>;

export function managementHandlers(deps: ServiceDeps): ManagementHandlers {
  // Every operation runs in its request's audit context (./audited.ts).
  return withAuditTrail({
    createOrganization: createOrganization(deps),
    listOrganizations: listOrganizations(deps),
    getOrganization: getOrganization(deps),
    updateOrganization: updateOrganization(deps),
    deleteOrganization: deleteOrganization(deps),
    listMembers: listMembers(deps),
    addMember: addMember(deps),
    updateMember: updateMember(deps),
    removeMember: removeMember(deps),
    createApplication: createApplication(deps),
    listApplications: listApplications(deps),
    getApplication: getApplication(deps),
    updateApplication: updateApplication(deps),
    deleteApplication: deleteApplication(deps),
    getApplicationUsage: getApplicationUsage(deps),
    getApplicationSpend: getApplicationSpend(deps),
    getOrganizationSpend: getOrganizationSpend(deps),
    exportOrganizationFocus: exportOrganizationFocus(deps),
    createRepricingJob: createRepricingJob(deps),
    listRepricingJobs: listRepricingJobs(deps),
    getRepricingJob: getRepricingJob(deps),
    cancelRepricingJob: cancelRepricingJob(deps),
    createApiKey: createApiKey(deps),
    listApiKeys: listApiKeys(deps),
    getApiKey: getApiKey(deps),
    updateApiKey: updateApiKey(deps),
    rotateApiKeySecret: rotateApiKeySecret(deps),
    deleteApiKey: deleteApiKey(deps),
    getCurrentUser: getCurrentUser(deps),
    updateCurrentUser: updateCurrentUser(deps),
    createAccessToken: createAccessToken(deps),
    getJwks: getJwks(deps),
    listAuditEvents: listAuditEvents(deps),
    listPriceEntries: listPriceEntries(deps),
    createPriceEntry: createPriceEntry(deps),
    getPriceEntry: getPriceEntry(deps),
    updatePriceEntry: updatePriceEntry(deps),
    deletePriceEntry: deletePriceEntry(deps),
    getEffectivePrice: getEffectivePrice(deps),
    listBudgets: listBudgets(deps),
    createBudget: createBudget(deps),
    getBudget: getBudget(deps),
    updateBudget: updateBudget(deps),
    deleteBudget: deleteBudget(deps),
    listWebhookEndpoints: listWebhookEndpoints(deps),
    createWebhookEndpoint: createWebhookEndpoint(deps),
    getWebhookEndpoint: getWebhookEndpoint(deps),
    updateWebhookEndpoint: updateWebhookEndpoint(deps),
    deleteWebhookEndpoint: deleteWebhookEndpoint(deps),
    rotateWebhookEndpointSecret: rotateWebhookEndpointSecret(deps),
    sendTestWebhookEvent: sendTestWebhookEvent(deps),
    listWebhookDeliveries: listWebhookDeliveries(deps),
  } satisfies Required<ManagementHandlers>);
}
