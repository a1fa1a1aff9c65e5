import { render } from 'preact';
import { createApiClient } from './api';
import { App } from './app';
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
const api = createApiClient({
  token: () => sessions.get()?.token ?? null,
  onSignedOut: () => sessions.clear(),
});

render(<App api={api} sessions={sessions} storage={storage} />, document.getElementById('app')!);
