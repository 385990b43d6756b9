// Ports for tests that need somewhere nothing answers.
import net from 'node:net';

/** A port on 127.0.0.1 that nothing listens on: taken from the system, then let go. */
export async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
