import http from 'node:http';
import type { Express, Request, Response } from 'express';

/**
 * The HTTP server for an Express app, whose requests and responses are made with the app's own
 * prototypes (`app.request`, `app.response`) from the start.
 *
 * Express gives each request and response it handles those prototypes with `Object.setPrototypeOf`.
 * On an object made by Node's `http` that gave it a hidden class (V8 map) of its own: no two
 * requests shared one, so every property access on a request or response, in Node's `http`, in
 * Express and here, missed its inline cache and went to V8's runtime, and each property added made
 * another new map. Made here as instances of classes whose prototypes are the app's, they already
 * have the prototype Express sets, its `setPrototypeOf` changes nothing, and requests share their
 * maps. For one app, once: later requests of a server made earlier for the same app go back to
 * being given the prototype (which still works, only more slowly).
 */
export function createAppServer(app: Express): http.Server {
  class AppRequest extends http.IncomingMessage {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  class AppResponse extends http.ServerResponse<AppRequest> {}
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Request;
  app.response = AppResponse.prototype as unknown as Response;
  return http.createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}
