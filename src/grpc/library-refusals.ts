// Owns the answers grpc-js gives by itself, before the Export handler has the request: a message
// over the size limit, a compression it does not know, a gzip message that does not decompress,
// a malformed `grpc-timeout`. The last two are the client's bytes, yet grpc-js answers INTERNAL
// (gRPC's own status table says so); OTLP asks for INVALID_ARGUMENT, and INTERNAL must stay the
// sign of a fault of the service. Each such answer is also reported, so that the log and /metrics
// count these calls like the handler's.
import { ServerInterceptingCall, ServerListenerBuilder, ResponderBuilder, status as Status, type ServerInterceptingCallInterface, type ServerInterceptor } from '@grpc/grpc-js';
import type { CallOutcome } from './trace-service.js';

type StatusObject = Parameters<ServerInterceptingCallInterface['sendStatus']>[0];

/**
 * A server interceptor (the only one: the call it receives is grpc-js's own, whose internal
 * refusals call its `sendStatus`, so wrapping that method on the instance is the one place they
 * pass). What the handler sends goes through the responder and is left as it is.
 */
export function libraryRefusals(refused: (outcome: CallOutcome) => void): ServerInterceptor {
  return (_method, call) => {
    const started = performance.now();
    let messageDelivered = false;
    // Once the handler answers, it has logged and counted the call itself.
    let handlerAnswering = false;
    let reported = false;
    const send = call.sendStatus.bind(call);
    call.sendStatus = (status: StatusObject) => {
      if (handlerAnswering) return send(status);
      // Before the message reached the handler, an INTERNAL can only be about what the client sent.
      const code = status.code === Status.INTERNAL && !messageDelivered ? Status.INVALID_ARGUMENT : status.code;
      // grpc-js ignores a second status for a call; so does the count.
      if (!reported) refused({ code, authFailure: undefined, durationMs: performance.now() - started });
      reported = true;
      send({ ...status, code });
    };
    const listener = new ServerListenerBuilder()
      .withOnReceiveMessage((message, next) => {
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
