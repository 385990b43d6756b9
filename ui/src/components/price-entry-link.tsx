// A span's price entry (`pricing.entry_id`) as a link to it on its organization's prices page. A
// span names its application (the view's `?app=`), not the organization: the application's
// organization is read once per application and kept for the tab's life (it never changes).
import { useLocation } from 'preact-iso';
import { call, management } from '../api';
import { useAsync } from '../use-async';

const organizationOfApplication = new Map<string, Promise<string>>();

function organizationOf(appId: string): Promise<string> {
  let organization = organizationOfApplication.get(appId);
  if (!organization) {
    organization = call(management.GET('/applications/{app_id}', { params: { path: { app_id: appId } } })).then(
      (application) => application.organization_id,
    );
    // A failure is not kept: the next span asks again.
    organization.catch(() => organizationOfApplication.delete(appId));
    organizationOfApplication.set(appId, organization);
  }
  return organization;
}

export function PriceEntryLink({ entryId }: { entryId: string }) {
  const app = useLocation().query.app;
  const organization = useAsync(() => (app ? organizationOf(app) : Promise.resolve(undefined)), [app]);
  const code = <code>{entryId}</code>;
  // Until the organization is known (or when it cannot be), the id alone.
  if (!app || !organization.data) return code;
  const query = new URLSearchParams({ app, entry: entryId });
  return <a href={`/ui/organizations/${organization.data}/prices?${query.toString()}`}>{code}</a>;
}
