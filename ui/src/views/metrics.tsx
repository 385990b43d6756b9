// Placeholder until this view is built (issue 14).
export function Metrics() {
  return (
    <section>
      <h1>Metrics</h1>
      <p>Not built yet.</p>
    </section>
  );
}
