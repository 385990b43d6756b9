// Owns the answers grpc-js gives by itself, before the Export handler has the request: a message
// over the size limit, a compression it does not know, a gzip message that does not decompress,
// a malformed `grpc-timeout`. The last two are the client's bytes, yet grpc-js answers INTERNAL
// (gRPC's own status table says so); OTLP asks for INVALID_ARGUMENT, and INTERNAL must stay the
// sign of a fault of the service. Each such answer is also reported, so that the log and /metrics
// count these calls like the handler's. Credentials come first, as in the handler: a call whose
// credentials are bad is answered UNAUTHENTICATED whatever else grpc-js found wrong with it.
import {
  ServerInterceptingCall,
  ServerListenerBuilder,
  ResponderBuilder,
  status as Status,
  type Metadata,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import type { CallOutcome, CredentialsRefusal } from './trace-service.js';

type StatusObject = Parameters<ServerInterceptingCallInterface['sendStatus']>[0];

/**
 * A server interceptor (the only one: the call it receives is grpc-js's own, whose internal
 * refusals call its `sendStatus`, so wrapping that method on the instance is the one place they
 * pass). What the handler sends goes through the responder and is left as it is.
 */
export function libraryRefusals(refused: (outcome: CallOutcome) => void, refusedCredentials: CredentialsRefusal): ServerInterceptor {
  return (_method, call) => {
    const started = performance.now();
    let messageDelivered = false;
    // grpc-js reads the call's metadata from its headers before it can refuse anything.
    let metadata: Metadata | undefined = (call as unknown as { metadata?: Metadata }).metadata;
    // Once the handler answers, it has logged and counted the call itself.
    let handlerAnswering = false;
    let reported = false;
    const send = call.sendStatus.bind(call);
    // Set once grpc-js refuses the call: the message is then kept from the handler.
    let refusing = false;
    const refuse = async (status: StatusObject): Promise<void> => {
      refusing = true;
      // Before the message reached the handler, an INTERNAL can only be about what the client sent.
      const libraryCode = status.code === Status.INTERNAL && !messageDelivered ? Status.INVALID_ARGUMENT : status.code;
      const credentials = metadata && (await refusedCredentials(metadata));
      const code = credentials ? Status.UNAUTHENTICATED : libraryCode;
      // grpc-js ignores a second status for a call; so does the count.
      if (!reported) refused({ code, authFailure: credentials?.authFailure, durationMs: performance.now() - started });
      reported = true;
      send(
        credentials
          ? {
              code,
              details: credentials.error.details ?? credentials.error.message,
              metadata: credentials.error.metadata ?? status.metadata,
            }
          : { ...status, code },
      );
    };
    call.sendStatus = (status: StatusObject) => {
      if (handlerAnswering) return send(status);
      // grpc-js ignores a second status for a call: the first refusal is the answer.
      if (refusing) return;
      // A cancelled call has no one to answer; its count needs no credentials check.
      if (status.code === Status.CANCELLED) {
        if (!reported) refused({ code: status.code, authFailure: undefined, durationMs: performance.now() - started });
        reported = true;
        return send(status);
      }
      void refuse(status);
    };
    const listener = new ServerListenerBuilder()
      .withOnReceiveMetadata((received, next) => {
        metadata = received;
        next(received);
      })
      // Nothing of a refused call reaches the handler: neither its message nor its end, which
      // without a message would make grpc-js refuse it again on its own.
      .withOnReceiveHalfClose((next) => {
        if (!refusing) next();
      })
      .withOnReceiveMessage((message, next) => {
        if (refusing) return;
        messageDelivered = true;
        next(message);
      })
      .build();
    const responder = new ResponderBuilder()
      .withStart((next) => next(listener))
      .withSendMessage((message, next) => {
        handlerAnswering = true;
        next(message);
      })
      .withSendStatus((status, next) => {
        handlerAnswering = true;
        next(status);
      })
      .build();
    return new ServerInterceptingCall(call, responder);
  };
}
