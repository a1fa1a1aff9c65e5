import type { Principal } from '../auth/auth-service';
import type { RawFields } from './image-params';

/** What an action handler gets: the request already parsed into plain values. */
export interface ActionRequest {
  /** Present for every action but the public ones. */
  principal: Principal;
  body: RawFields;
  query: RawFields;
  /** The client's address (one proxy hop trusted). */
  address: string;
  now: Date;
}

/** An envelope answer, or a file to download. */
export type ActionAnswer =
  | { message: string; data?: unknown; headers?: Record<string, string> }
  | { download: { fileName: string; content: string; contentType: string } };

export type ActionHandler = (request: ActionRequest) => Promise<ActionAnswer>;
