// A MariaDB stand-in that accepts connections (the real handshake, by mysql2's own server side)
// and answers every statement with one server error: how a Galera node outside the primary
// component answers (1047 "WSREP has not yet prepared node for application use"), or a commit
// that failed while replicating (1180). `answers` scripts the next statements instead (an error,
// or OK with a count of affected rows: a write that fails certification, then succeeds), and
// `killNext()` cuts the connection of the next statement, as a node killed mid-transaction does.
// Clients see the errors exactly as mysql2 builds them from the wire.
import type { AddressInfo } from 'node:net';
import mysql from 'mysql2';

export interface ServerError {
  errno: number;
  message: string;
}

export const WSREP_NOT_READY: ServerError = { errno: 1047, message: 'WSREP has not yet prepared node for application use' };

interface ServerConnection {
  serverHandshake(args: Record<string, unknown>): void;
  writeError(args: { code: number; message: string }): void;
  writeOk(args: { affectedRows: number }): void;
  on(event: string, listener: (...args: unknown[]) => void): void;
  stream: { destroy(): void };
  sequenceId: number;
}

interface MysqlServer {
  listen(port: number, host: string, callback: () => void): void;
  close(callback: () => void): void;
  on(event: 'connection', listener: (connection: ServerConnection) => void): void;
  _server: { address(): AddressInfo };
}

export class FailingMysqlServer {
  private readonly server = (mysql as unknown as { createServer(): MysqlServer }).createServer();
  private readonly connections = new Set<ServerConnection>();
  private killing = false;
  /** The answers to the next statements, in order, before `error` again. */
  answers: Array<ServerError | { affectedRows: number }> = [];
  /** Every statement received, in order. */
  readonly statements: string[] = [];
  port = 0;

  constructor(public error: ServerError = WSREP_NOT_READY) {
    this.server.on('connection', (connection) => {
      this.connections.add(connection);
      connection.on('error', () => this.connections.delete(connection));
      connection.on('end', () => this.connections.delete(connection));
      connection.serverHandshake({
        protocolVersion: 10,
        serverVersion: '10.11.0-MariaDB',
        connectionId: 1,
        statusFlags: 2,
        characterSet: 45,
        capabilityFlags: 0xf7ff,
        // Any credentials are accepted; the first command then starts the sequence at 0.
        authCallback: (_client: unknown, accept: (error: null) => void) => {
          accept(null);
          connection.sequenceId = 0;
        },
      });
      const answer = (...args: unknown[]) => {
        this.statements.push(String(args.find((arg) => typeof arg === 'string') ?? ''));
        if (this.killing) {
          this.killing = false;
          connection.stream.destroy();
          return;
        }
        // mysql2's server side does not restart the packet sequence per command: the answer to a
        // command is packet 1, and the next command starts again at 0.
        connection.sequenceId = 1;
        const next = this.answers.shift() ?? this.error;
        if ('errno' in next) connection.writeError({ code: next.errno, message: next.message });
        else connection.writeOk({ affectedRows: next.affectedRows });
        connection.sequenceId = 0;
      };
      // mysql2's server side reports statements starting with SET or PREPARE as stmt_prepare.
      for (const event of ['query', 'stmt_prepare', 'stmt_execute']) connection.on(event, answer);
    });
  }

  /** The next statement, on any connection, breaks its connection instead of answering. */
  killNext(): void {
    this.killing = true;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = this.server._server.address().port;
  }

  get url(): string {
    return `mysql://spanledger:spanledger@127.0.0.1:${this.port}/spanledger`;
  }

  async stop(): Promise<void> {
    for (const connection of this.connections) connection.stream.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
