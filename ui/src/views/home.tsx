// Placeholder until this view is built (issue 14).
export function Home() {
  return (
    <section>
      <h1>Organizations</h1>
      <p>Not built yet.</p>
    </section>
  );
}
