// Placeholder until this view is built (issue 14).
export function TraceView() {
  return (
    <section>
      <h1>Trace</h1>
      <p>Not built yet.</p>
    </section>
  );
}
