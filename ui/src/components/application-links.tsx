// Where an application's data is seen: the data views, with the application chosen (`?app=`).
export function ApplicationLinks({ applicationId, name }: { applicationId: string; name: string }) {
  const views = [
    ['traces', 'Traces'],
    ['metrics', 'Metrics'],
    ['live', 'Live'],
  ];
  return (
    <ul class="inline-list">
      {views.map(([view, label]) => (
        <li key={view}>
          <a href={`/ui/${view}?app=${encodeURIComponent(applicationId)}`} aria-label={`${label} of ${name}`}>
            {label}
          </a>
        </li>
      ))}
    </ul>
  );
}
