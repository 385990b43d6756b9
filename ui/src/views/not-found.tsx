export function NotFound() {
  return (
    <section>
      <h1>Nothing here</h1>
      <p>
        This dashboard page does not exist. <a href="/ui/">Go to your organizations.</a>
      </p>
    </section>
  );
}
