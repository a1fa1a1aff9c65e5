import { render } from 'preact';
import { createApiClient } from './api';
import { App } from './app';
import { createConnection } from './connection';
import { createSessionStore } from './session';
import './styles.css';

function localStore(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

const storage = localStore();
const sessions = createSessionStore(storage);
const connection = createConnection();
const api = createApiClient({
  token: () => sessions.get()?.token ?? null,
  onSignedOut: () => sessions.clear(),
  onConnection: (answered, load) => (answered ? connection.reached() : connection.lost(load)),
});

render(<App api={api} sessions={sessions} storage={storage} connection={connection} />, document.getElementById('app')!);
